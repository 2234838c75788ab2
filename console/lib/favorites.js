// Favorites and plot views (issue 33 item 2). Until the endpoints exist in this server the
// star and the save button are left out rather than shown broken.

/** @param {number} _project */
export async function favorites(_project) {
  return { star: (/** @type {string} */ _id) => null }
}

/** @param {number} _project @param {() => any} _view */
export function saveViewButton(_project, _view) {
  return null
}
