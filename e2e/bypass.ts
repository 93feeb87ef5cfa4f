/**
 * Vercel's deployment protection lets automation through with the project's "Protection Bypass
 * for Automation" secret: set VERCEL_AUTOMATION_BYPASS_SECRET when running against a protected
 * preview. The cookie header makes the browser keep access across page loads.
 */
export function bypassHeaders(): Record<string, string> {
  const secret = process.env.VERCEL_AUTOMATION_BYPASS_SECRET;
  return secret ? { "x-vercel-protection-bypass": secret, "x-vercel-set-bypass-cookie": "true" } : {};
}
