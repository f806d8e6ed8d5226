/** The portal's server-rendered pages: plain, accessible HTML with no script at all. */
import type { FormOffer } from './policy.js';
import type { IssuedKey } from './request-key.js';

export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
label{display:block;font-weight:600;margin:1rem 0 .25rem}input[type=text]{width:100%;padding:.5rem;font:inherit;box-sizing:border-box}
.hint{color:#555;font-size:.9rem;margin:.25rem 0}button{font:inherit;padding:.5rem 1rem;margin:1rem .5rem 0 0;cursor:pointer}
.warn{border-left:4px solid #b35c00;background:#fff6eb;padding:.5rem 1rem}.err{border-left:4px solid #b00020;background:#fdecee;padding:.5rem 1rem}
.ok{border-left:4px solid #1b7f3b;background:#edf7ef;padding:.5rem 1rem}code.secret{display:block;font-size:1.05rem;padding:.75rem;background:#f3f3f3;word-break:break-all;user-select:all}
fieldset{border:0;padding:0;margin:0}legend{font-weight:600;margin-top:1rem}`;

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${esc(title)} – Covercheck</title><style>${STYLE}</style></head>
<body><header><p><a href="/portal">Covercheck API keys</a></p></header><main><h1>${esc(title)}</h1>
${body}
</main></body></html>`;
}

const WARNING = `<div class="warn" role="note"><p><strong>Keep API keys secret.</strong> Never put a key in source control
(git, including private repositories) or in client-side code: browser JavaScript, mobile apps or anything you ship to users.
Keep it in server-side configuration or a secrets manager. Anyone with the key can spend its credits.</p></div>`;

function csrfField(csrf: string): string {
  return `<input type="hidden" name="csrf" value="${esc(csrf)}">`;
}

export function requestPage(csrf: string, offer: FormOffer, opts: { error?: string; value?: string } = {}): string {
  const error = opts.error ? `<div class="err" role="alert" id="who-error"><p>${esc(opts.error)}</p></div>` : '';
  const domains = offer.domains ? offer.domains.map((d) => `@${d}`).join(', ') : null;
  const intro = offer.live
    ? `<p>Free-plan keys come with 100 credits a month and every scope. Test keys (<code>pk_test_</code>) answer from the
sandbox and are never charged. A free key that is not used within 7 days is deactivated.</p>`
    : `<p>This portal gives test keys (<code>pk_test_</code>): they answer from the sandbox, are never charged and have every
scope. Ask the operator of this service for a live key. A key that is not used within 7 days is deactivated.</p>`;
  const [label, hint] = offer.byName
    ? [
        'Your e-mail address or a name for the key',
        'With an e-mail address we send you a link that shows the key. With a name (no @) the key is shown here at once.',
      ]
    : ['Your e-mail address', `Keys are given to addresses at ${domains} only. We send you a link that shows the key.`];
  const buttons = offer.live
    ? `<button type="submit" name="mode" value="live">Get a live key (pk_live_)</button>
<button type="submit" name="mode" value="test">Get a test key (pk_test_)</button>`
    : `<button type="submit" name="mode" value="test">Get a test key (pk_test_)</button>`;
  return layout(
    'Get an API key',
    `${intro}
${error}
<form method="post" action="/portal/keys">
${csrfField(csrf)}
<label for="who">${esc(label)}</label>
<p class="hint" id="who-hint">${esc(hint)}</p>
<input type="text" id="who" name="who" required maxlength="200" autocomplete="email" value="${esc(opts.value ?? '')}"
 aria-describedby="who-hint${opts.error ? ' who-error' : ''}"${opts.error ? ' aria-invalid="true"' : ''}>
<fieldset><legend>Which key?</legend>
${buttons}
</fieldset>
</form>
${WARNING}`,
  );
}

export function keyPage(issued: IssuedKey): string {
  const secret = issued.webhookSecret
    ? `<h2>Webhook signing secret</h2><p>Verifies the signatures on webhooks sent for this key (Standard Webhooks).</p>
<code class="secret" id="webhook-secret">${esc(issued.webhookSecret)}</code>`
    : '';
  return layout(
    'Your API key',
    `<div class="ok" role="status"><p>Your ${issued.mode === 'test' ? 'test' : 'live'} key is ready. <strong>It is shown only this once</strong>:
copy it now. We store only a hash of it and cannot show it again.</p></div>
<h2>API key</h2><code class="secret" id="api-key">${esc(issued.key)}</code>
${secret}
${WARNING}
<p>Use it as <code>Authorization: Bearer &lt;key&gt;</code>. A key not used within 7 days is deactivated.</p>`,
  );
}

export function mailSentPage(): string {
  return layout(
    'Check your mail',
    `<div class="ok" role="status"><p>If the address can receive mail, a link to activate your key is on its way.
The link works once and for 24 hours.</p></div><p><a href="/portal">Back to the portal</a></p>`,
  );
}

export function confirmActivationPage(csrf: string, token: string): string {
  return layout(
    'Activate your API key',
    `<p>Activating shows your new key on the next page, once. Have somewhere safe to keep it.</p>
<form method="post" action="/portal/activate">${csrfField(csrf)}<input type="hidden" name="token" value="${esc(token)}">
<button type="submit">Activate and show my key</button></form>
${WARNING}`,
  );
}

const REFUSED: Record<'unknown' | 'used' | 'expired', string> = {
  unknown: 'This activation link is not valid. Check that the whole link was copied, or ask for a new key.',
  used: 'This activation link was already used. Its key was shown once and cannot be shown again. Ask for a new key if you lost it.',
  expired: 'This activation link has expired (links work for 24 hours). Ask for a new key.',
};

export function linkRefusedPage(reason: keyof typeof REFUSED): string {
  return layout(
    'Link not usable',
    `<div class="err" role="alert"><p>${esc(REFUSED[reason])}</p></div><p><a href="/portal">Ask for a new key</a></p>`,
  );
}

export function messagePage(title: string, message: string): string {
  return layout(title, `<div class="err" role="alert"><p>${esc(message)}</p></div><p><a href="/portal">Back to the portal</a></p>`);
}
