/** An id segment of a path: a prefix, an optional mode and a long random part with a digit (`txr_prod_06h2d00z…`). */
const ID_SEGMENT = /^([a-z]+_(?:[a-z]+_)?)((?=[a-z]*[0-9])[0-9a-z]{10,})$/;

/**
 * A request's path as the log list shows it: each id shortened to its prefix and last four
 * characters (`/api/acc_prod_…myd6y/tax-rates/txr_prod_…x01g`), so the list's column reads as
 * what was asked for, not as a row of ids; the full path is on hover and on the request's page.
 */
export function shortPath(path: string): string {
  return path
    .split("/")
    .map((segment) => {
      const id = ID_SEGMENT.exec(segment);
      return id ? `${id[1]}…${id[2]!.slice(-4)}` : segment;
    })
    .join("/");
}
