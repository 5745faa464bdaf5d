/** The watch list's orders, as its sort menu names them (the page reads them too: not from a client module). */
export const SORTS = [
  { value: "attention", label: "Needs attention" },
  { value: "created", label: "Newest" },
  { value: "updated", label: "Recently edited" },
  { value: "name", label: "Name" },
] as const;
export type Sort = (typeof SORTS)[number]["value"];
