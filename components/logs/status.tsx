/** A status code coloured by class: green 2xx, amber 4xx, red 5xx. */
export function StatusCode({ status }: { status: number }) {
  const style = status >= 500 ? "bg-red-100 text-red-800" : status >= 400 ? "bg-amber-100 text-amber-900" : "bg-emerald-100 text-emerald-800";
  const kind = status >= 500 ? "server-error" : status >= 400 ? "client-error" : "success";
  return (
    <span data-status-class={kind} className={`inline-block rounded px-2 py-0.5 font-mono text-xs font-medium ${style}`}>
      {status}
    </span>
  );
}
