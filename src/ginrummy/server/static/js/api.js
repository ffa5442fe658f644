// HTTP calls to the server's JSON API, with errors turned into readable exceptions.
import { hasText, t } from "./i18n.js";

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/**
 * JSON.parse that keeps deal seeds exact: seeds are 64-bit integers, which a JavaScript
 * number would round, and the commitment is the SHA-256 of the seed's decimal text.
 */
export function parseJson(text) {
  return JSON.parse(text.replace(/("seed"\s*:\s*)(-?\d+)/g, '$1"$2"'));
}

/** Call the API; resolve to the parsed body, or throw ApiError with the server's message. */
export async function api(method, path, body) {
  const init = { method, headers: { Accept: "application/json" }, credentials: "same-origin" };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new ApiError(0, "network", t("error.network"));
  }
  const text = await response.text();
  let data = null;
  try {
    data = text ? parseJson(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    const error = (data && data.error) || {};
    const code = error.code || `http_${response.status}`;
    throw new ApiError(response.status, code, error.message || response.statusText || code);
  }
  return data;
}

/**
 * One message for an error, in the page's language, chosen by the error's stable code (the
 * server's own English words are for logs and programs, never shown beside the translation).
 */
export function describeError(error) {
  if (!(error instanceof ApiError)) return t("error.generic");
  const key = `error.${error.code}`;
  if (hasText(key)) return t(key);
  const byStatus = `error.http_${error.status}`;
  return hasText(byStatus) ? t(byStatus) : t("error.generic");
}
