/**
 * How errand proposes selectors for an element, as JavaScript source shared by the page scripts
 * below: most stable first (#id, tag[name="..."], #formId tag[type="..."], then a structural path
 * from the nearest element with an id), each kept only when it matches exactly that one element.
 * Ids and names enter a selector only when they are plain identifiers of at most 32 characters.
 */
const SELECTOR_PROPOSALS = String.raw`const SAFE = /^[A-Za-z_][A-Za-z0-9_-]{0,31}$/;
  const uniqueIn = (sel, el) => {
    try {
      const found = document.querySelectorAll(sel);
      return found.length === 1 && found[0] === el;
    } catch (e) {
      return false;
    }
  };
  const structural = (el) => {
    const parts = [];
    let node = el;
    while (node && node.nodeType === 1 && node !== document.documentElement) {
      if (node !== el && node.id && SAFE.test(node.id) && uniqueIn("#" + node.id, node)) {
        parts.unshift("#" + node.id);
        return parts.join(" > ");
      }
      let n = 1;
      for (let sib = node.previousElementSibling; sib; sib = sib.previousElementSibling) if (sib.localName === node.localName) n += 1;
      parts.unshift(node.localName + ":nth-of-type(" + n + ")");
      node = node.parentElement;
    }
    parts.unshift("html");
    return parts.join(" > ");
  };
  const selectorsFor = (el) => {
    const tag = el.localName;
    const out = [];
    if (el.id && SAFE.test(el.id)) out.push("#" + el.id);
    const name = el.getAttribute("name");
    if (name && SAFE.test(name)) out.push(tag + '[name="' + name + '"]');
    const type = typeof el.type === "string" ? el.type : "";
    if (el.form && el.form.id && SAFE.test(el.form.id) && SAFE.test(type)) out.push("#" + el.form.id + " " + tag + '[type="' + type + '"]');
    out.push(structural(el));
    return out.filter((sel) => uniqueIn(sel, el));
  };`;

/**
 * What errand reads from a page to outline it, as JavaScript source run in the page. Kept as a
 * string (not a function) so the TypeScript toolchain cannot wrap it in helpers the page lacks.
 * It only reads the DOM: it never types, clicks, submits, or reads a field's value.
 *
 * For each form control it proposes selectors (SELECTOR_PROPOSALS); it keeps only those that match
 * exactly that one element in the page, and errand checks the one it reports again through
 * Playwright. Ids and names go into selectors only when they are plain identifiers of at most 32
 * characters, so no sentence a page plants (spaces, quotes, or a long run of words joined by
 * underscores) reaches a selector, which the assistant sees outside the untrusted wrapper.
 * Everything is bounded by `limits`.
 */
export const OUTLINE_SCRIPT = String.raw`(limits) => {
  ${SELECTOR_PROPOSALS}
  const flat = (s) => (s || "").replace(/\s+/g, " ").trim();
  const visible = (el) => {
    if (!el.getClientRects || el.getClientRects().length === 0) return false;
    const style = getComputedStyle(el);
    return style.visibility !== "hidden" && style.display !== "none";
  };
  const ownText = (label, field) => {
    let text = "";
    const walk = (node) => {
      for (const child of node.childNodes) {
        if (child === field) continue;
        if (child.nodeType === 3) text += child.textContent + " ";
        else if (child.nodeType === 1 && !["select", "textarea", "input", "script", "style"].includes(child.localName)) walk(child);
      }
    };
    walk(label);
    return flat(text);
  };
  const labelOf = (el) => {
    const labels = el.labels ? Array.from(el.labels) : [];
    for (const label of labels) {
      const text = ownText(label, el);
      if (text) return text;
    }
    return flat(el.getAttribute("aria-label") || el.getAttribute("placeholder") || el.getAttribute("title") || "");
  };
  const field = (el) => {
    const tag = el.localName;
    // The browser's own reading of type: an invalid attribute reads "text", so page text cannot pose as a type.
    const type = tag === "input" ? el.type : tag;
    const item = { tag, type, name: el.getAttribute("name") || "", id: el.id || "", label: type === "hidden" ? "" : labelOf(el), required: !!el.required, visible: visible(el), candidates: selectorsFor(el) };
    if (tag === "select") item.options = Array.from(el.options).slice(0, limits.options).map((o) => ({ value: o.value, label: flat(o.label || o.textContent) }));
    return item;
  };
  const buttonText = (el) => flat(el.localName === "input" ? el.getAttribute("value") || el.getAttribute("aria-label") || "" : el.innerText || el.textContent || el.getAttribute("aria-label") || "");
  const button = (el) => ({ tag: el.localName, type: typeof el.type === "string" ? el.type : "", text: buttonText(el), id: el.id || "", name: el.getAttribute("name") || "", visible: visible(el), candidates: selectorsFor(el) });

  const scope = limits.scope ? document.querySelector(limits.scope) : null;
  const root = scope ? scope.closest("form, fieldset, section, article, main, [role=main], [role=form], body") || document.body : document;
  const inRoot = (el) => root === document || root.contains(el);
  const controls = Array.from(document.querySelectorAll("input, select, textarea")).filter(inRoot).slice(0, limits.scan);
  const buttons = Array.from(document.querySelectorAll("button, input[type=submit], input[type=button], input[type=reset], input[type=image], [role=button]")).filter(inRoot).slice(0, limits.scan);
  const isButtonInput = (el) => el.localName === "input" && ["submit", "button", "reset", "image"].includes((el.getAttribute("type") || "").toLowerCase());
  const groups = [];
  const groupFor = (form) => {
    let group = groups.find((g) => g.form === form);
    if (!group) {
      group = { form, candidates: form ? selectorsFor(form) : [], fields: [], buttons: [] };
      groups.push(group);
    }
    return group;
  };
  for (const el of controls) if (!isButtonInput(el)) groupFor(el.form || null).fields.push(field(el));
  for (const el of buttons) groupFor(el.form || null).buttons.push(button(el));
  groups.sort((a, b) => (a.form === null ? 1 : 0) - (b.form === null ? 1 : 0));

  const headings = Array.from(document.querySelectorAll("h1, h2, h3")).filter(inRoot).slice(0, limits.headings).map((h) => ({ level: Number(h.localName.slice(1)), text: flat(h.innerText || h.textContent) }));
  const landmarkRoles = { main: "main", nav: "navigation", header: "banner", footer: "contentinfo", aside: "complementary" };
  const landmarks = Array.from(document.querySelectorAll("main, nav, header, footer, aside, [role=main], [role=navigation], [role=search], [role=banner], [role=contentinfo]"))
    .slice(0, limits.landmarks)
    .map((el) => ({ role: el.getAttribute("role") || landmarkRoles[el.localName] || el.localName, label: flat(el.getAttribute("aria-label") || "") }));
  const links = Array.from(document.querySelectorAll("a[href]"))
    .filter(inRoot)
    .filter((a) => /^https?:/.test(a.href))
    .slice(0, limits.links)
    .map((a) => ({ text: flat(a.innerText || a.textContent || a.getAttribute("aria-label") || ""), href: a.href }));
  return {
    url: location.href,
    title: document.title || "",
    scoped: root !== document,
    headings,
    landmarks,
    groups: groups.slice(0, limits.forms).map((g) => ({ candidates: g.candidates, fields: g.fields.slice(0, limits.fields), buttons: g.buttons.slice(0, limits.buttons) })),
    links,
  };
}`;

/**
 * The iframes of one document (iframe and frame elements, in document order, at most
 * `limits.frames`): for each, the selectors proposed for it (SELECTOR_PROPOSALS) and the address its
 * src resolves to. Run in a document errand may read (the page, or a frame on the task's hosts),
 * never inside the iframes it lists.
 */
export const FRAMES_SCRIPT = String.raw`(limits) => {
  ${SELECTOR_PROPOSALS}
  return Array.from(document.querySelectorAll("iframe, frame"))
    .slice(0, limits.frames)
    .map((el) => ({ candidates: selectorsFor(el), src: typeof el.src === "string" ? el.src : "" }));
}`;

export interface RawFrame {
  candidates: string[];
  src: string;
}

export interface RawField {
  tag: string;
  type: string;
  name: string;
  id: string;
  label: string;
  required: boolean;
  visible: boolean;
  candidates: string[];
  options?: { value: string; label: string }[];
}

export interface RawButton {
  tag: string;
  type: string;
  text: string;
  id: string;
  name: string;
  visible: boolean;
  candidates: string[];
}

export interface RawOutline {
  url: string;
  title: string;
  scoped: boolean;
  headings: { level: number; text: string }[];
  landmarks: { role: string; label: string }[];
  groups: { candidates: string[]; fields: RawField[]; buttons: RawButton[] }[];
  links: { text: string; href: string }[];
}
