// Passkeys (docs/accounts.md "Passkeys"): the browser's half of the WebAuthn
// ceremonies, and the list on /account. The server sends the options as JSON
// (binary values in base64url); the browser wants ArrayBuffers, and its answer goes
// back as JSON the same way.

import { rememberIdentity } from "./api.js";
import { has, t } from "./i18n.js";

/** Whether this browser can use passkeys here (a secure context with WebAuthn). */
export function passkeysAvailable() {
  return Boolean(window.isSecureContext && window.PublicKeyCredential && navigator.credentials);
}

function fromBase64url(text) {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)).buffer;
}

function toBase64url(buffer) {
  let text = "";
  for (const byte of new Uint8Array(buffer)) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

const descriptors = (list) => (list || []).map((c) => ({ ...c, id: fromBase64url(c.id) }));

function creationOptions(o) {
  return { ...o, challenge: fromBase64url(o.challenge), user: { ...o.user, id: fromBase64url(o.user.id) }, excludeCredentials: descriptors(o.excludeCredentials) };
}

function requestOptions(o) {
  return { ...o, challenge: fromBase64url(o.challenge), allowCredentials: descriptors(o.allowCredentials) };
}

function answer(credential) {
  const r = credential.response;
  const response = { clientDataJSON: toBase64url(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = toBase64url(r.attestationObject);
    response.transports = r.getTransports ? r.getTransports() : [];
  } else {
    response.authenticatorData = toBase64url(r.authenticatorData);
    response.signature = toBase64url(r.signature);
    if (r.userHandle) response.userHandle = toBase64url(r.userHandle);
  }
  return {
    id: credential.id,
    rawId: toBase64url(credential.rawId),
    type: credential.type,
    response,
    authenticatorAttachment: credential.authenticatorAttachment ?? undefined,
    clientExtensionResults: credential.getClientExtensionResults(),
  };
}

async function send(path, body) {
  const response = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw Object.assign(new Error(data.message || response.statusText), { code: data.code, status: response.status });
  return data;
}

/** The browser said no (the person cancelled, or no passkey of this site is here). */
function cancelled(error) {
  return error?.name === "NotAllowedError" || error?.name === "AbortError";
}

/** Add a passkey to the logged-in account, its password given again; ``name`` may be empty. */
export async function addPasskey(name, password) {
  const begun = await send("/api/account/passkeys/options", { name: name || null, password });
  let credential;
  try {
    credential = await navigator.credentials.create({ publicKey: creationOptions(begun.options) });
  } catch (error) {
    if (error?.name === "InvalidStateError") throw Object.assign(new Error(error.message), { code: "passkey-present" });
    if (cancelled(error)) throw Object.assign(new Error(error.message), { code: "passkey-cancelled" });
    throw error;
  }
  return (await send("/api/account/passkeys", { ceremony: begun.ceremony, credential: answer(credential) })).passkey;
}

/** Log in with a passkey this browser (or a phone near it) has: no nickname needed. */
export async function loginWithPasskey() {
  const begun = await send("/api/account/passkey-login/options", {});
  let credential;
  try {
    credential = await navigator.credentials.get({ publicKey: requestOptions(begun.options) });
  } catch (error) {
    if (cancelled(error)) throw Object.assign(new Error(error.message), { code: "passkey-cancelled" });
    throw error;
  }
  const data = await send("/api/account/passkey-login", { ceremony: begun.ceremony, credential: answer(credential) });
  rememberIdentity(data.player);
  return data;
}

export async function myPasskeys() {
  const response = await fetch("/api/account/passkeys");
  return response.ok ? (await response.json()).passkeys : [];
}

export function removePasskey(id) {
  return send("/api/account/passkeys/remove", { id });
}

function day(iso) {
  return new Date(iso).toLocaleDateString(document.documentElement.lang || undefined);
}

/** Fill ``list`` (a <ul>) with the account's passkeys, each with a Remove button. */
export async function showPasskeys(list, onError) {
  const keys = await myPasskeys();
  list.replaceChildren();
  if (!keys.length) {
    const li = document.createElement("li");
    li.className = "hint";
    li.textContent = t("passkey.none");
    list.append(li);
  }
  for (const key of keys) {
    const li = document.createElement("li");
    li.className = "passkey";
    li.dataset.passkey = key.id;
    const label = document.createElement("span");
    const name = key.name || t("passkey.unnamed");
    label.textContent = `${name} — ${t("passkey.added", { date: day(key.created) })}` + (key.used ? `, ${t("passkey.used", { date: day(key.used) })}` : "");
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "danger";
    remove.textContent = t("passkey.remove");
    remove.setAttribute("aria-label", `${t("passkey.remove")}: ${name}`);
    remove.addEventListener("click", async () => {
      if (!window.confirm(t("passkey.removeConfirm"))) return;
      try {
        await removePasskey(key.id);
        await showPasskeys(list, onError);
      } catch (error) {
        onError(error);
      }
    });
    li.append(label, " ", remove);
    list.append(li);
  }
}

/** An error of a passkey ceremony in the page's language. */
export function passkeyError(error) {
  return has(`error.${error.code}`) ? t(`error.${error.code}`) : error.message;
}
