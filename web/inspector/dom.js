// Small DOM helpers: build elements from tags, attributes and children (text is always set as text, never as HTML).

/**
 * `h('a', { href: '#/saves', class: 'x' }, 'Saves')`: an element; `on<event>` attributes become listeners,
 * strings become text nodes, arrays are flattened, null and false are skipped.
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (name === 'dataset') Object.assign(element.dataset, value);
    else if (name === 'style' && typeof value === 'object') Object.assign(element.style, value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

/** An SVG element with attributes. */
export function svg(tag, attributes = {}, ...children) {
  const element = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces the children of `element`. */
export function replace(element, ...children) {
  element.replaceChildren();
  append(element, children);
}

/** A readable error box for a failed call. */
export function errorBox(error) {
  const code = error && error.code ? `${error.code}: ` : '';
  return h('div', { class: 'error', role: 'alert' }, code, error && error.message ? error.message : String(error));
}

/** A readable empty state. */
export function empty(text) {
  return h('p', { class: 'empty' }, text);
}

/** A comma-separated input as a list of trimmed, non-empty items. */
export function splitList(text) {
  return String(text ?? '').split(',').map((item) => item.trim()).filter((item) => item !== '');
}

/** A number input's value, or undefined when blank. */
export function numberOrUndefined(text) {
  const trimmed = String(text ?? '').trim();
  return trimmed === '' ? undefined : Number(trimmed);
}
