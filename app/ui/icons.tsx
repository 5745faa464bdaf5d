/** The few icons the interface uses (inline SVG, 16 px, stroked in the text colour; decorative: aria-hidden). */
const paths = {
  menu: "M2.5 4.5h11M2.5 8h11M2.5 11.5h11",
  more: "M3.5 8h.01M8 8h.01M12.5 8h.01",
  plus: "M8 3v10M3 8h10",
  chevron: "M4 6l4 4 4-4",
  arrow: "M3 8h10M9 4l4 4-4 4",
  play: "M5 3.5v9l7.5-4.5z",
} as const;

export function Icon({ name }: { name: keyof typeof paths }) {
  return (
    <svg
      className="icon-svg"
      viewBox="0 0 16 16"
      fill="none"
      stroke="currentColor"
      strokeWidth={name === "more" ? 2.6 : 1.6}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden
      focusable="false"
    >
      <path d={paths[name]} />
    </svg>
  );
}
