/**
 * The currencies the service bills in: the active codes of ISO 4217 (list one, as amended to
 * 2025: XCG for ANG, ZWG for ZWL, SLE for SLL, VED beside VES), each with its minor unit, the
 * exponent of its atoms (USD 2: 1 atom is 0.01; JPY 0; KWD 3; CLF 4). The project owns this table
 * rather than asking the runtime's ICU: CLDR's digits differ from ISO's for some codes (IQD is 3 in
 * ISO and 0 in CLDR; HUF, IDR and COP print 0 decimals in places where ISO says 2), and an amount in
 * atoms must mean the same in the API, the dashboard and the PDFs whatever the runtime
 * (docs/billing.md, "Bounds, currencies and what the database refuses";
 * docs/rules/money.md, "Currencies are the codes of ISO 4217"). Codes without a minor unit in
 * ISO (precious metals XAU…, XDR, the test and no-currency codes XTS, XXX) are not currencies one
 * bills in and are not listed. Pure: client components import it.
 */
export const CURRENCY_EXPONENTS: Readonly<Record<string, number>> = Object.freeze({
  aed: 2, afn: 2, all: 2, amd: 2, aoa: 2, ars: 2, aud: 2, awg: 2, azn: 2,
  bam: 2, bbd: 2, bdt: 2, bgn: 2, bhd: 3, bif: 0, bmd: 2, bnd: 2, bob: 2, bov: 2, brl: 2, bsd: 2, btn: 2, bwp: 2, byn: 2, bzd: 2,
  cad: 2, cdf: 2, che: 2, chf: 2, chw: 2, clf: 4, clp: 0, cny: 2, cop: 2, cou: 2, crc: 2, cup: 2, cve: 2, czk: 2,
  djf: 0, dkk: 2, dop: 2, dzd: 2,
  egp: 2, ern: 2, etb: 2, eur: 2,
  fjd: 2, fkp: 2,
  gbp: 2, gel: 2, ghs: 2, gip: 2, gmd: 2, gnf: 0, gtq: 2, gyd: 2,
  hkd: 2, hnl: 2, htg: 2, huf: 2,
  idr: 2, ils: 2, inr: 2, iqd: 3, irr: 2, isk: 0,
  jmd: 2, jod: 3, jpy: 0,
  kes: 2, kgs: 2, khr: 2, kmf: 0, kpw: 2, krw: 0, kwd: 3, kyd: 2, kzt: 2,
  lak: 2, lbp: 2, lkr: 2, lrd: 2, lsl: 2, lyd: 3,
  mad: 2, mdl: 2, mga: 2, mkd: 2, mmk: 2, mnt: 2, mop: 2, mru: 2, mur: 2, mvr: 2, mwk: 2, mxn: 2, mxv: 2, myr: 2, mzn: 2,
  nad: 2, ngn: 2, nio: 2, nok: 2, npr: 2, nzd: 2,
  omr: 3,
  pab: 2, pen: 2, pgk: 2, php: 2, pkr: 2, pln: 2, pyg: 0,
  qar: 2,
  ron: 2, rsd: 2, rub: 2, rwf: 0,
  sar: 2, sbd: 2, scr: 2, sdg: 2, sek: 2, sgd: 2, shp: 2, sle: 2, sos: 2, srd: 2, ssp: 2, stn: 2, svc: 2, syp: 2, szl: 2,
  thb: 2, tjs: 2, tmt: 2, tnd: 3, top: 2, try: 2, ttd: 2, twd: 2, tzs: 2,
  uah: 2, ugx: 0, usd: 2, usn: 2, uyi: 0, uyu: 2, uyw: 4, uzs: 2,
  ved: 2, ves: 2, vnd: 0, vuv: 0,
  wst: 2,
  xaf: 0, xcd: 2, xcg: 2, xof: 0, xpf: 0,
  yer: 2,
  zar: 2, zmw: 2, zwg: 2,
});

/** The exponent of an ISO 4217 code in any case (USD 2, JPY 0, KWD 3), or null for a code the table does not list. */
export function isoExponent(currency: string): number | null {
  const code = currency.trim().toLowerCase();
  return Object.hasOwn(CURRENCY_EXPONENTS, code) ? CURRENCY_EXPONENTS[code]! : null;
}
