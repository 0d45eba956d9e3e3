/** The changes of a report's groups are judged with its model (src/report/model.ts). */
export { withChanges } from "./model.js";
