"use client";
/**
 * A menu of secondary actions or links behind one button (Radix DropdownMenu: keyboard, focus and positioning done
 * right). Not modal, so opening it locks no scrolling and injects no stylesheet; Radix positions the open menu with
 * inline style properties set from script, which the pages' Content-Security-Policy allows.
 *
 *   <Menu label="More actions"><MenuItem onSelect={…}>Fork</MenuItem><MenuSeparator /><MenuLink href="/x">X</MenuLink></Menu>
 */
import * as DropdownMenu from "@radix-ui/react-dropdown-menu";
import Link from "next/link";
import type { ReactNode } from "react";
import { Icon } from "./icons";

export function Menu({
  label,
  trigger,
  align = "end",
  children,
}: {
  /** The trigger's accessible name (and its text unless `trigger` is given). */
  label: string;
  /** A custom trigger's content, e.g. an icon; it gets `label` as its accessible name. */
  trigger?: ReactNode;
  align?: "start" | "center" | "end";
  children: ReactNode;
}) {
  return (
    <DropdownMenu.Root modal={false}>
      <DropdownMenu.Trigger asChild>
        {trigger ? (
          <button type="button" className="secondary icon" aria-label={label}>
            {trigger}
          </button>
        ) : (
          <button type="button" className="secondary">
            {label} <Icon name="chevron" />
          </button>
        )}
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content
          className="menu-content"
          align={align}
          sideOffset={6}
          collisionPadding={8}
          // Focus goes back to the button when the menu closes, unless an item opened a dialog that holds it now: taken
          // from there (the menu's closing animation ends after the dialog opened), the dialog would close at once.
          onCloseAutoFocus={(e) => {
            if (document.activeElement?.closest('[role="dialog"], [role="alertdialog"]')) e.preventDefault();
          }}
        >
          {children}
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}

/** An action; `onSelect` runs when it is chosen (click, Enter or Space), then the menu closes. */
export function MenuItem({
  onSelect,
  disabled,
  tone,
  children,
}: {
  onSelect: () => void;
  disabled?: boolean;
  tone?: "danger";
  children: ReactNode;
}) {
  return (
    <DropdownMenu.Item className="menu-item" data-tone={tone} disabled={disabled} onSelect={onSelect}>
      {children}
    </DropdownMenu.Item>
  );
}

/** A link; `current` marks the page you are on. `hard` loads the page in full (see app/ui/nav.tsx). */
export function MenuLink({
  href,
  current,
  hard,
  children,
}: {
  href: string;
  current?: boolean;
  hard?: boolean;
  children: ReactNode;
}) {
  const props = { className: "menu-item", href, "aria-current": current ? ("page" as const) : undefined };
  return (
    <DropdownMenu.Item asChild>
      {hard ? <a {...props}>{children}</a> : <Link {...props}>{children}</Link>}
    </DropdownMenu.Item>
  );
}

export const MenuSeparator = () => <DropdownMenu.Separator className="menu-separator" />;

export const MenuLabel = ({ children }: { children: ReactNode }) => (
  <DropdownMenu.Label className="menu-label">{children}</DropdownMenu.Label>
);
