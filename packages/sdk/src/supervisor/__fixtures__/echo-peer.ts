/**
 * Test fixture: the far end of a control channel on fd 3. Answers `echo` with its params, `big` with `n` bytes of text, `fail` with an
 * error, `notify-me` by sending `n` notifications first, `exit` by exiting without an answer; forwards every
 * notification it receives back as `seen`.
 */
import { ControlChannel } from "../control-channel.ts";
import { openInheritedControlIO } from "../control-pipe.ts";
import { McpError } from "../../wire/errors.ts";

const channel: ControlChannel = new ControlChannel(openInheritedControlIO(), {
  maxFrameBytes: 8 * 1024 * 1024,
  onRequest: async (method, params) => {
    switch (method) {
      case "echo":
        return params;
      case "big":
        return { big: "z".repeat(Number(params.n)) };
      case "fail":
        throw new McpError(-32010, "asked to fail", { code: "E_RUN_FAILED" });
      case "notify-me":
        for (let i = 0; i < Number(params.n); i++) channel.notify("tick", { i });
        return { sent: params.n };
      case "exit":
        setTimeout(() => process.exit(7), 10);
        return new Promise(() => {});
      default:
        throw new McpError(-32601, `Method not found: ${method}`);
    }
  },
  onNotification: (method, params) => channel.notify("seen", { method, params }),
  onClose: () => process.exit(0),
});
