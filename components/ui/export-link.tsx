/**
 * "Export": downloads the list as the page shows it filtered, every page of it, as CSV, from the
 * list's export operation (docs/api.md, "Exports"); the dashboard session authenticates the GET.
 */
export function ExportLink({ path, filters }: { path: string; filters: Record<string, string | undefined> }) {
  const params = new URLSearchParams({ format: "csv" });
  for (const [key, value] of Object.entries(filters)) if (value) params.set(key, value);
  return (
    <a
      href={`${path}?${params.toString()}`}
      download
      className="rounded border border-slate-300 px-3 py-1.5 text-sm text-slate-700 hover:bg-slate-50"
      title="Download every item of this filtered list as CSV"
    >
      Export
    </a>
  );
}
