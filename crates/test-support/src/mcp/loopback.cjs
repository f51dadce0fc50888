// Preloaded into server-everything (`node --require`): its HTTP modes call
// `app.listen(PORT)`, which binds every interface, and it has no host
// option. This makes a port-only listen bind 127.0.0.1 and reports the port
// actually bound (PORT=0 picks a free one) on stderr for the test to read.
"use strict";
const net = require("node:net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const port = args[0];
  const portOnly =
    typeof port === "number" || (typeof port === "string" && /^\d+$/.test(port));
  if (portOnly && typeof args[1] !== "string") {
    args.splice(1, 0, "127.0.0.1");
  }
  this.once("listening", () => {
    const address = this.address();
    if (address && typeof address === "object") {
      process.stderr.write(`pizza-test listening ${address.address} ${address.port}\n`);
    }
  });
  return listen.apply(this, args);
};
