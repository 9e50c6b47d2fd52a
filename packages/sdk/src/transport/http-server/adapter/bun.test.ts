/** The server case suite with the Bun adapter (`Bun.serve`). */
import { runServerCases } from "../__fixtures__/server.case.ts";
import { startCaseServer } from "../__fixtures__/case-server.ts";

runServerCases("the server with the Bun adapter", (o) => startCaseServer(o, "bun"));
