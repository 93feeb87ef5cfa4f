import Link from "next/link";

export default function Home() {
  return (
    <main className="mx-auto max-w-2xl px-6 py-16">
      <h1 className="text-3xl font-semibold">Billing Service</h1>
      <p className="mt-4 text-slate-600">
        A REST API for customers, subscriptions and invoices, an event trail of every state change, and signed
        webhooks.
      </p>
      <ul className="mt-8 list-disc space-y-2 pl-6">
        <li>
          <Link className="text-indigo-700 underline" href="/reference">
            API reference
          </Link>
        </li>
        <li>
          <a className="text-indigo-700 underline" href="/api/openapi.json">
            OpenAPI 3.1 document
          </a>
        </li>
      </ul>
    </main>
  );
}
