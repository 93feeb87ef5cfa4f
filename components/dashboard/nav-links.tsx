"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useState, type ReactNode } from "react";

const LINKS = [
  { href: "", label: "Overview" },
  { href: "/customers", label: "Customers" },
  { href: "/subscriptions", label: "Subscriptions" },
  { href: "/invoices", label: "Invoices" },
  { href: "/credits", label: "Credits" },
  { href: "/meters", label: "Meters" },
  { href: "/alerts", label: "Alerts" },
  { href: "/products", label: "Products" },
  { href: "/payments", label: "Payments" },
  { href: "/tokens", label: "API tokens" },
  { href: "/webhooks", label: "Webhooks" },
  { href: "/events", label: "Events" },
  { href: "/emails", label: "Emails" },
  { href: "/settings", label: "Settings" },
  { href: "/logs", label: "Logs" },
];

/**
 * The dashboard's sections. From `md` up they sit in the header; below, behind a Menu button so
 * the header stays one bar and the search box keeps the width (a phone at 390 px). The menu closes
 * itself on navigation: it is open only for the path it was opened on. `children` (sign out) are
 * shown in the open menu only; the header shows its own from `md` up.
 */
export function NavLinks({ base, children }: { base: string; children?: ReactNode }) {
  const pathname = usePathname();
  const [openOn, setOpenOn] = useState<string | null>(null);
  const open = openOn === pathname;
  return (
    <>
      <button
        type="button"
        aria-expanded={open}
        aria-controls="dashboard-nav"
        onClick={() => setOpenOn(open ? null : pathname)}
        className="rounded border border-slate-300 px-2 py-1 text-sm text-slate-700 hover:bg-slate-100 md:hidden"
      >
        Menu
      </button>
      <div id="dashboard-nav" className={`${open ? "flex" : "hidden"} order-10 basis-full flex-col gap-2 md:order-none md:flex md:basis-auto md:flex-row`}>
        <nav aria-label="Dashboard" className="flex flex-wrap gap-1 text-sm">
          {LINKS.map((link) => {
            const href = `${base}${link.href}`;
            const active = link.href === "" ? pathname === base : pathname.startsWith(href);
            return (
              <Link
                key={link.label}
                href={href}
                aria-current={active ? "page" : undefined}
                className={`rounded px-2 py-1 ${active ? "bg-slate-900 text-white" : "text-slate-700 hover:bg-slate-100"}`}
              >
                {link.label}
              </Link>
            );
          })}
        </nav>
        {children && <div className="md:hidden">{children}</div>}
      </div>
    </>
  );
}
