// `GET/POST /v2/logging`, Triton's logging extension over HTTP: GET answers the settings in force,
// POST applies the settings its body names and answers the settings then in force. The settings
// themselves live with the main thread's LogControl (logging/); a front-end thread reaches them
// through a message, so the route only knows a LogSettingsPort.

import { parseJsonBytes } from './json-text.js';
import { decodeLogSettingsJson, type LogSettingsUpdate } from '../logging/log-settings.js';

export const LOGGING_PATH = '/v2/logging';

/** The update a POST body asks for; an empty body changes nothing, as `{}` would. */
export function decodeLoggingBody(body: Uint8Array): LogSettingsUpdate {
  return body.byteLength === 0 ? {} : decodeLogSettingsJson(parseJsonBytes(body));
}
