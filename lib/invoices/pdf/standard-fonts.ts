/*
 * A new pdfkit document whose standard fonts' metrics are parsed once per process.
 *
 * pdfkit 0.17 reads and parses a standard font's AFM file (Helvetica.afm: 3,000 lines, each
 * matched with regular expressions) every time a document uses the font: twice for every invoice
 * and credit note (Helvetica and Helvetica-Bold), about a fifth of an invoice finalization's CPU
 * and of the billing property test's. What the parse produces (the font's attributes, its glyph
 * widths and kerning pairs) is read, never written, after parsing, so the tables parsed from a
 * file's contents are kept and every later font made from the same contents shares them. Each
 * document still makes its own font objects, ids and references: the bytes are those pdfkit gives
 * without the cache (tests/unit/pdf-bytes.test.ts pins the issued documents' hashes).
 *
 * pdfkit exports only the document, so its AFM parser is found on the default font of a document
 * made for the purpose. A pdfkit whose fonts are not built that way is left as it is (each
 * document parses its own metrics, as before).
 *
 * pdfkit (with fontkit, crypto-js, brotli and the rest it brings) is loaded on the first document,
 * not when the server starts: most processes never render one, and loading it was a share of every
 * start's CPU and of the heap every full collection marks.
 */

type AfmTables = { attributes: object; glyphWidths: object; boundingBoxes: object; kernPairs: object };
type AfmParser = { parse(this: AfmTables, contents: string): void };

type PdfKit = typeof import("pdfkit");

let loaded: Promise<PdfKit> | undefined;

/** pdfkit, loaded once, its standard fonts' metrics shared. */
function pdfKit(): Promise<PdfKit> {
  loaded ??= import("pdfkit").then((module) => {
    const PDFDocument = module.default;
    shareStandardFontMetrics(PDFDocument);
    return PDFDocument;
  });
  return loaded;
}

function shareStandardFontMetrics(PDFDocument: PdfKit): void {
  const probe = new PDFDocument({ autoFirstPage: false }) as unknown as { _font?: { font?: { constructor?: { prototype?: Partial<AfmParser> } } } };
  const parser = probe._font?.font?.constructor?.prototype;
  const parse = parser?.parse;
  if (!parser || typeof parse !== "function") return;
  const parsed = new Map<string, AfmTables>();
  parser.parse = function parseOnce(this: AfmTables, contents: string): void {
    const known = parsed.get(contents);
    if (known) {
      Object.assign(this, known);
      return;
    }
    parse.call(this, contents);
    parsed.set(contents, { attributes: this.attributes, glyphWidths: this.glyphWidths, boundingBoxes: this.boundingBoxes, kernPairs: this.kernPairs });
  };
}

export async function pdfDocument(options: PDFKit.PDFDocumentOptions): Promise<PDFKit.PDFDocument> {
  const PDFDocument = await pdfKit();
  return new PDFDocument(options);
}
