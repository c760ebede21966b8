// A review's link: the record in the address (#review=...), so that it needs no storage
// on the server and never expires (docs/analysis.md).

/** A record in a link: its UTF-8 bytes in base64url. */
export function encodeRecord(text) {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** The record of a link made by encodeRecord, or null when it is not one. */
export function decodeRecord(code) {
  try {
    const binary = atob(code.replaceAll("-", "+").replaceAll("_", "/"));
    return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    return null;
  }
}
