// Owns finding the pages' elements, typed for the checker: a missing or mistyped element
// is a bug in the HTML, so these do not test for null.

/** @param {string} id @returns {HTMLElement} */
export const $ = (id) => document.getElementById(id);

/** @param {string} id @returns {HTMLButtonElement} */
export const $button = (id) => /** @type {HTMLButtonElement} */ (document.getElementById(id));

/** @param {string} id @returns {HTMLInputElement} */
export const $input = (id) => /** @type {HTMLInputElement} */ (document.getElementById(id));

/** @param {string} id @returns {HTMLDialogElement} */
export const $dialog = (id) => /** @type {HTMLDialogElement} */ (document.getElementById(id));

/**
 * The first element under `root` matching `selector`.
 * @param {ParentNode} root @param {string} selector @returns {HTMLElement}
 */
export const find = (root, selector) => /** @type {HTMLElement} */ (root.querySelector(selector));

/** @param {string} selector @returns {HTMLElement[]} every element matching `selector` */
export const all = (selector) => /** @type {HTMLElement[]} */ (Array.from(document.querySelectorAll(selector)));

/** @param {string} name @returns {HTMLInputElement[]} the inputs of a radio group */
export const radios = (name) => /** @type {HTMLInputElement[]} */ (Array.from(document.querySelectorAll(`input[name="${name}"]`)));
