/*! hcas healthcare access widget v1 | MIT | served as /widget/v1/widget.js
 *
 * Embed:
 *   <div data-service-widget data-zip="10001" data-size="standard" data-theme="light"></div>
 *   <script async src="https://API-HOST/widget/v1/widget.js"></script>
 *
 * Renders every element carrying data-service-widget (now and added later) inside its own shadow root,
 * from the API's widget-score/{zip}/ answer. Plain ES2017, no dependencies, no build step: this file is
 * what browsers run. Tests: test/widget-browser.test.ts drives it in Chromium. The file is ASCII (other
 * characters as \u escapes): a static host may send it without a charset, and the page's own would garble them.
 */
(function () {
  'use strict';

  // A second copy of the script on the page (two embeds pasted) only looks for new elements.
  if (window.HcasWidget) return window.HcasWidget.scan();
  if (!Element.prototype.attachShadow || !window.fetch) return; // the page keeps its fallback content

  var ATTRIBUTE = 'data-service-widget';
  var STATE = 'data-service-widget-state'; // loading | ready | error: a hook for the page's own scripts
  var WATCHED = [ATTRIBUTE, 'data-zip', 'data-size', 'data-theme', 'data-api', 'data-key'];
  var SIZES = ['compact', 'standard', 'full'];
  var THEMES = ['light', 'dark'];
  /** The API lets the answer be kept 24 hours (Cache-Control max-age); never longer. */
  var MAX_AGE_SECONDS = 86400;
  var TIMEOUT_MS = 10000;
  var STORAGE_PREFIX = 'hcas-widget:v1:';
  var COMPONENTS = [
    ['provider', 'Providers'],
    ['hospital', 'Hospitals'],
    ['people', 'People'],
    ['travel', 'Travel'],
  ];

  // Read now: document.currentScript is only set while this file first runs.
  var script = document.currentScript || document.querySelector('script[src*="/widget/v1/widget.js"]');
  var scriptApi = script && script.getAttribute('data-api');
  // The API is where this script came from: .../widget/v1/widget.js -> .../api/v1/
  var defaultBase = null;
  try {
    defaultBase = scriptApi ? apiBase(scriptApi) : script && script.src ? apiBase(new URL('../../', script.src).href) : null;
  } catch (e) {
    /* each widget then asks for data-api */
  }

  var rendered = new WeakMap(); // element -> { root, seq }: each element gets one shadow root, ever
  var requests = {}; // cache key -> promise of the body: one fetch per ZIP per page, shared by its widgets
  var storage = openStorage();

  /** The API base (`https://host/api/v1/`) from an origin, a root, or the base itself; throws on a non-http URL. */
  function apiBase(value) {
    var url = new URL(value, document.baseURI);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
    return url.origin + url.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '') + '/api/v1/';
  }

  // ---- options --------------------------------------------------------------------------------------

  /** The element's settings; `error` names the attribute to fix and what it accepts. */
  function readOptions(el) {
    var zip = (el.getAttribute('data-zip') || '').trim();
    var api = (el.getAttribute('data-api') || '').trim();
    var size = choice(el, 'data-size', SIZES, 'standard');
    var theme = choice(el, 'data-theme', THEMES, 'light');
    var options = {
      zip: zip,
      size: size.value || 'standard',
      theme: theme.value || 'light',
      key: (el.getAttribute('data-key') || '').trim(),
      base: defaultBase,
    };
    var apiError = null;
    try {
      if (api) options.base = apiBase(api);
    } catch (e) {
      apiError = 'data-api must be an http or https URL of the API, got "' + clip(api) + '"';
    }
    var zipError = /^\d{5}$/.test(zip)
      ? null
      : zip
        ? 'data-zip must be a 5-digit ZIP code, got "' + clip(zip) + '"'
        : 'data-zip is missing: it must be a 5-digit ZIP code';
    options.error =
      zipError ||
      size.error ||
      theme.error ||
      apiError ||
      (options.base ? null : 'data-api is needed: the widget cannot tell which API it was loaded from');
    return options;
  }

  function choice(el, name, allowed, fallback) {
    var raw = el.getAttribute(name);
    if (raw === null || raw.trim() === '') return { value: fallback };
    var value = raw.trim().toLowerCase();
    if (allowed.indexOf(value) >= 0) return { value: value };
    var list = allowed.slice(0, -1).join(', ') + ' or ' + allowed[allowed.length - 1];
    return { error: name + ' must be ' + list + ', got "' + clip(raw) + '"' };
  }

  function clip(text) {
    text = String(text);
    return text.length > 40 ? text.slice(0, 40) + '\u2026' : text;
  }

  // ---- data: memory, then storage, then one fetch -----------------------------------------------------

  function openStorage() {
    try {
      var store = window.localStorage;
      store.setItem(STORAGE_PREFIX + 'probe', '1');
      store.removeItem(STORAGE_PREFIX + 'probe');
      // Drop what has expired, so visited ZIPs do not pile up.
      for (var i = store.length - 1; i >= 0; i--) {
        var name = store.key(i);
        if (name && name.indexOf(STORAGE_PREFIX) === 0 && !readStored(store, name)) store.removeItem(name);
      }
      return store;
    } catch (e) {
      return null; // blocked cookies, private mode, sandboxed frame: memory only
    }
  }

  function readStored(store, name) {
    try {
      var entry = JSON.parse(store.getItem(name));
      return entry && entry.expires > Date.now() && isScore(entry.body) ? entry.body : null;
    } catch (e) {
      return null;
    }
  }

  /** The widget-score body for the options: { body } or a promise of it; rejects with { status } or an Error. */
  function load(options) {
    // The answer differs by key (white-label), so the key is part of the name; a hash, so no key is stored.
    var name = STORAGE_PREFIX + options.base + options.zip + (options.key ? '#' + hash(options.key) : '');
    if (requests[name]) return requests[name];
    var stored = storage && readStored(storage, name);
    if (stored) return (requests[name] = Promise.resolve(stored));
    var request = fetchScore(options).then(function (answer) {
      if (storage && answer.maxAge > 0) {
        try {
          storage.setItem(name, JSON.stringify({ expires: Date.now() + answer.maxAge * 1000, body: answer.body }));
        } catch (e) {
          /* full: the next page load asks again */
        }
      }
      return answer.body;
    });
    request.catch(function () {
      delete requests[name]; // a later render (attribute change, new element) tries again
    });
    return (requests[name] = request);
  }

  function fetchScore(options) {
    var headers = options.key ? { 'X-API-Key': options.key } : {};
    var controller = window.AbortController ? new AbortController() : null;
    var timer =
      controller &&
      setTimeout(function () {
        controller.abort();
      }, TIMEOUT_MS);
    var url = options.base + 'widget-score/' + options.zip + '/';
    return fetch(url, { headers: headers, credentials: 'omit', signal: controller ? controller.signal : undefined }).then(
      function (response) {
        clearTimeout(timer);
        return response
          .json()
          .catch(function () {
            return null;
          })
          .then(function (body) {
            if (!response.ok || !isScore(body)) {
              var failure = new Error((body && body.message) || 'HTTP ' + response.status + ' from ' + url);
              failure.status = response.ok ? 0 : response.status;
              throw failure;
            }
            var maxAge = /max-age=(\d+)/.exec(response.headers.get('Cache-Control') || '');
            return { body: body, maxAge: Math.min(maxAge ? Number(maxAge[1]) : MAX_AGE_SECONDS, MAX_AGE_SECONDS) };
          });
      },
      function (error) {
        clearTimeout(timer);
        throw error;
      },
    );
  }

  function isScore(body) {
    return !!body && typeof body.score === 'number' && typeof body.label === 'string' && typeof body.zip_code === 'string';
  }

  /** FNV-1a: a short, stable name for an API key in a storage key. */
  function hash(text) {
    var h = 0x811c9dc5;
    for (var i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
    return (h >>> 0).toString(36);
  }

  /** What a visitor reads when the score cannot be shown. */
  function failureText(error, options) {
    switch (error && error.status) {
      case 404:
        return 'No score for ZIP ' + options.zip;
      case 429:
        return 'Too many requests; try again later';
      case 401:
        return 'Healthcare score unavailable: data-key is not a valid API key';
      case 403:
        return "Healthcare score unavailable: the API key's plan does not include the widget";
      default:
        return 'Healthcare score unavailable right now';
    }
  }

  // ---- colour ------------------------------------------------------------------------------------------

  /** WCAG 2 relative luminance of #rrggbb. */
  function luminance(hex) {
    var n = parseInt(hex.slice(1), 16);
    var rgb = [(n >> 16) & 255, (n >> 8) & 255, n & 255].map(function (c) {
      c /= 255;
      return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
    });
    return 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
  }

  function contrast(a, b) {
    var x = luminance(a),
      y = luminance(b);
    return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
  }

  /** Black or white, whichever reads better on `background`: one of them always reaches 4.58:1. */
  function inkOn(background) {
    return contrast(background, '#000000') >= contrast(background, '#ffffff') ? '#000000' : '#ffffff';
  }

  // ---- rendering -----------------------------------------------------------------------------------------

  var STYLE = [
    // !important from inside the shadow tree beats the page's own !important on the host (CSS Cascade 4, context).
    ':host{display:inline-block!important;visibility:visible!important;opacity:1!important;border:0!important;padding:0!important;',
    'background:none!important;max-width:100%;vertical-align:top}',
    '.w{all:initial;display:block;box-sizing:border-box;max-width:100%;padding:14px 16px;border:1px solid var(--line);border-radius:12px;',
    'background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;text-align:left}',
    '.w *{box-sizing:border-box;margin:0;padding:0;font:inherit;color:inherit}',
    '.light{--bg:#fff;--fg:#1f2933;--muted:#52606d;--line:#cbd2d9;--link:#1a56db;--track:#e4e7eb;--bar:#3e5c76}',
    '.dark{--bg:#1a1f29;--fg:#f5f7fa;--muted:#b3bcc8;--line:#3e4c59;--link:#8fb8ff;--track:#323c4a;--bar:#9fb3c8}',
    '.standard,.full{width:340px}',
    '.compact{display:inline-flex;align-items:center;gap:10px;padding:8px 14px 8px 8px;border-radius:10px}',
    '.cap{font-size:12px;color:var(--muted);letter-spacing:.02em;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}',
    '.head{display:flex;align-items:center;gap:12px;margin-top:6px}',
    '.compact .head{margin:0;gap:10px}',
    '.tile{flex:none;display:flex;align-items:center;justify-content:center;width:56px;height:56px;border-radius:10px;',
    'font-size:26px;font-weight:700;line-height:1;box-shadow:inset 0 0 0 1px rgba(0,0,0,.18)}',
    '.compact .tile{width:42px;height:42px;font-size:20px;border-radius:8px}',
    '.main{flex:1;min-width:0}',
    '.label{font-size:17px;font-weight:700;line-height:1.25}',
    '.compact .label{font-size:15px}',
    '.grade{flex:none;text-align:center;font-size:11px;color:var(--muted);text-transform:uppercase;letter-spacing:.05em}',
    '.grade b{display:block;font-size:22px;font-weight:700;line-height:1.1;color:var(--fg);letter-spacing:0}',
    '.summary{margin-top:10px}',
    '.near{margin-top:6px;font-size:13px;color:var(--muted)}',
    '.near b{font-weight:600;color:var(--fg)}',
    '.bars{display:grid;grid-template-columns:78px 1fr 26px;align-items:center;gap:6px 10px;margin-top:12px;font-size:13px}',
    '.track{height:8px;border-radius:4px;background:var(--track);overflow:hidden}',
    '.fill{display:block;height:100%;border-radius:4px;background:var(--bar)}',
    '.num{text-align:right;font-variant-numeric:tabular-nums;font-weight:600}',
    '.w a{color:var(--link);text-decoration:underline;text-underline-offset:2px;cursor:pointer}',
    '.w a:focus-visible{outline:2px solid var(--link);outline-offset:2px;border-radius:2px}',
    '.report{display:inline-block;margin-top:12px;font-weight:600}',
    '.foot{margin-top:12px;padding-top:8px;border-top:1px solid var(--line);font-size:12px;color:var(--muted)}',
    '.compact .foot{margin:2px 0 0;padding:0;border:0}',
    '.error{display:flex;gap:10px;align-items:flex-start}',
    '.nw{white-space:nowrap}',
    '.error.compact{align-items:center}',
    '.mark{flex:none;width:22px;height:22px;border-radius:50%;background:var(--muted);color:var(--bg);font-weight:700;text-align:center;line-height:22px}',
    // Room for most of what comes, so the page moves little when the score arrives.
    '.loading.standard{min-height:220px}',
    '.loading.full{min-height:360px}',
  ].join('');

  /** A DOM element: attributes (style as an object), then children (strings become text, never HTML). */
  function h(tag, attributes, children) {
    var el = document.createElement(tag);
    for (var name in attributes) {
      var value = attributes[name];
      if (value === null || value === undefined || value === false) continue;
      if (name === 'style') for (var property in value) el.style.setProperty(property, value[property]);
      else el.setAttribute(name, value);
    }
    (children || []).forEach(function (child) {
      if (child !== null && child !== undefined && child !== false)
        el.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
    });
    return el;
  }

  function link(href, text, className) {
    var url;
    try {
      url = new URL(href);
    } catch (e) {
      return h('span', { class: className }, [text]);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return h('span', { class: className }, [text]);
    return h('a', { class: className, href: url.href, target: '_blank', rel: 'noopener' }, [text]);
  }

  /** The badge for one score. */
  function scoreView(body, options) {
    var size = options.size;
    var color = /^#[0-9a-f]{6}$/i.test(body.color) ? body.color : '#7b8794';
    var place = [body.city, body.state].filter(Boolean).join(', ');
    var where = 'Healthcare access \u00b7 ' + (place ? place + ' ' + body.zip_code : 'ZIP ' + body.zip_code);
    var name =
      'Healthcare access score for ZIP ' +
      body.zip_code +
      ': ' +
      body.score +
      ' out of 100, ' +
      body.label +
      (body.grade ? ', grade ' + body.grade : '');
    var tile = h('div', { class: 'tile', 'aria-hidden': 'true', style: { background: color, color: inkOn(color) } }, [String(body.score)]);
    var attribution =
      body.white_label || !body.attribution
        ? null
        : h('div', { class: 'foot' }, [link(new URL(body.attribution.url, options.base).href, body.attribution.text)]);

    if (size === 'compact') {
      return h('div', { class: 'w compact ' + options.theme, role: 'group', 'aria-label': name, lang: 'en' }, [
        tile,
        h('div', { class: 'main' }, [
          h('div', { class: 'label' }, [body.label]),
          h('div', { class: 'cap' }, ['Healthcare access \u00b7 ZIP ' + body.zip_code]),
          attribution,
        ]),
      ]);
    }
    var hospital = body.nearest_hospital;
    var parts = [
      h('div', { class: 'cap', title: where }, [where]),
      h('div', { class: 'head' }, [
        tile,
        h('div', { class: 'main' }, [h('div', { class: 'label' }, [body.label]), h('div', { class: 'cap' }, [body.score + ' out of 100'])]),
        body.grade ? h('div', { class: 'grade' }, ['Grade', h('b', {}, [body.grade])]) : null,
      ]),
      body.summary ? h('p', { class: 'summary' }, [body.summary + '.']) : null,
      h(
        'p',
        { class: 'near' },
        hospital
          ? ['Nearest hospital: ', h('b', {}, [hospital.name]), ' \u00b7 ' + miles(hospital.distance_miles)]
          : ['Nearest hospital: none on record nearby'],
      ),
    ];
    if (size === 'full') {
      parts.push(h('div', { class: 'bars' }, componentBars(body.components || {})));
      var quality = body.data_quality && body.data_quality.components && body.data_quality.components.provider;
      if (quality === 'missing')
        parts.push(
          h('p', { class: 'near' }, ['Clinician supply is not measured in this data; the score rests on people, hospitals and travel.']),
        );
      if (quality === 'sample') parts.push(h('p', { class: 'near' }, ['Clinician supply is estimated from a sample of clinicians.']));
      if (body.report_url)
        parts.push(link(new URL(body.report_url, options.base).href, 'Full report for ZIP ' + body.zip_code + ' \u2192', 'report'));
    }
    // The API's own map, opened at this ZIP code (an API without one sends no map_url); hcas's page, so not white-label.
    if (body.map_url && !body.white_label)
      parts.push(link(new URL(body.map_url, options.base).href, 'See ZIP ' + body.zip_code + ' on the map \u2192', 'report'));
    parts.push(attribution);
    return h('div', { class: 'w ' + size + ' ' + options.theme, role: 'group', 'aria-label': name, lang: 'en' }, parts);
  }

  /** The full badge's bars: each component's score as a meter, or "not measured" for a component without one. */
  function componentBars(components) {
    return COMPONENTS.reduce(function (cells, pair) {
      // A component the build could not measure (null) is shown as such, never as a zero.
      var measured = components[pair[0]] !== null && components[pair[0]] !== undefined;
      var value = measured ? Math.max(0, Math.min(100, Math.round(Number(components[pair[0]]) || 0))) : 0;
      return cells.concat([
        h('span', { 'aria-hidden': 'true' }, [pair[1]]),
        h(
          'div',
          measured
            ? {
                class: 'track',
                role: 'meter',
                'aria-label': pair[1],
                'aria-valuemin': '0',
                'aria-valuemax': '100',
                'aria-valuenow': String(value),
                'aria-valuetext': value + ' out of 100',
              }
            : { class: 'track', role: 'img', 'aria-label': pair[1] + ': not measured' },
          [h('span', { class: 'fill', style: { width: value + '%' } })],
        ),
        h('span', { class: 'num', 'aria-hidden': 'true' }, [measured ? String(value) : 'n/a']),
      ]);
    }, []);
  }

  function miles(distance) {
    var rounded = Math.round(Number(distance) * 10) / 10;
    return rounded + (rounded === 1 ? ' mile' : ' miles');
  }

  function messageView(text, options, className) {
    return h(
      'div',
      {
        class: 'w ' + className + ' ' + options.size + ' ' + options.theme,
        'aria-busy': className === 'loading' ? 'true' : null,
        role: 'group',
        'aria-label': 'Healthcare access score',
        lang: 'en',
      },
      [
        className === 'error' ? h('div', { class: 'mark', 'aria-hidden': 'true' }, ['!']) : null,
        h('div', { class: 'main' }, [
          h('div', { class: 'cap' }, ['Healthcare access score']),
          h('p', { class: 'message' }, unbroken(text)),
        ]),
      ],
    );
  }

  /** The text with each hyphenated word (data-size, 5-digit) kept on one line. */
  function unbroken(text) {
    return text.split(/(\S+-\S+)/).map(function (part, i) {
      return i % 2 ? h('span', { class: 'nw' }, [part]) : part;
    });
  }

  function paint(state, el, view, status) {
    var root = state.root;
    while (root.firstChild) root.removeChild(root.firstChild);
    root.appendChild(state.style);
    root.appendChild(view);
    el.setAttribute(STATE, status);
  }

  /** Draws the element from its current attributes; a newer render wins over a slower older one. */
  function render(el) {
    var state = rendered.get(el);
    var seq = ++state.seq;
    var options = readOptions(el);
    if (options.error) {
      console.warn('[hcas widget] ' + options.error, el);
      return paint(state, el, messageView(options.error, options, 'error'), 'error');
    }
    paint(state, el, messageView('Loading\u2026', options, 'loading'), 'loading');
    load(options).then(
      function (body) {
        if (seq === state.seq) paint(state, el, scoreView(body, options), 'ready');
      },
      function (error) {
        if (seq !== state.seq) return;
        console.warn('[hcas widget] ZIP ' + options.zip + ': ' + (error && error.message), el);
        paint(state, el, messageView(failureText(error, options), options, 'error'), 'error');
      },
    );
  }

  /** Gives the element its shadow root (once) and draws it. */
  function mount(el) {
    if (rendered.has(el)) return;
    var root;
    try {
      root = el.attachShadow({ mode: 'open' });
    } catch (e) {
      // An element that cannot host a shadow root (a, li, td...) gets a span that can.
      root = el.appendChild(document.createElement('span')).attachShadow({ mode: 'open' });
    }
    rendered.set(el, { root: root, seq: 0, style: h('style', {}, [STYLE]) });
    render(el);
  }

  /** Renders every widget element in `node` (the document by default) not rendered yet. */
  function scan(node) {
    node = node || document;
    if (node.nodeType === 1 && node.hasAttribute(ATTRIBUTE)) mount(node);
    if (node.querySelectorAll) Array.prototype.forEach.call(node.querySelectorAll('[' + ATTRIBUTE + ']'), mount);
  }

  new MutationObserver(function (records) {
    records.forEach(function (record) {
      if (record.type === 'childList')
        return Array.prototype.forEach.call(record.addedNodes, function (node) {
          scan(node);
        });
      var el = record.target;
      if (!el.hasAttribute(ATTRIBUTE)) return;
      if (rendered.has(el)) render(el);
      else mount(el);
    });
  }).observe(document.documentElement, { childList: true, subtree: true, attributes: true, attributeFilter: WATCHED });

  window.HcasWidget = { version: '1', scan: scan };
  scan();
})();
