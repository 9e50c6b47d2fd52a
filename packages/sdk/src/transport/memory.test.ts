import { MemoryTransport } from "./memory.ts";
import { runTransportCases } from "./__fixtures__/transport.case.ts";

runTransportCases("MemoryTransport pair", async () => {
  const [a, b] = MemoryTransport.createPair();
  await a.start();
  await b.start();
  return {
    a,
    b,
    cleanup: async () => {
      await a.close();
      await b.close();
    },
  };
});
