"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

const LINKS = [
  { href: "", label: "Overview" },
  { href: "/customers", label: "Customers" },
  { href: "/subscriptions", label: "Subscriptions" },
  { href: "/invoices", label: "Invoices" },
  { href: "/products", label: "Products" },
  { href: "/payments", label: "Payments" },
  { href: "/tokens", label: "API tokens" },
  { href: "/webhooks", label: "Webhooks" },
  { href: "/events", label: "Events" },
  { href: "/settings", label: "Settings" },
];

export function NavLinks({ base }: { base: string }) {
  const pathname = usePathname();
  return (
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
  );
}
