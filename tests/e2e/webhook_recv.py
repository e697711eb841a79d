#!/usr/bin/env python3
"""A webhook receiver for tests/e2e/webhook.sh: listens on 127.0.0.1 (a free
port, written to PORTFILE), answers each POST with STATUS (200 by default)
and appends its body, one JSON document a line, to OUT. Ends by itself
after 60 s."""
import http.server
import json
import sys
import threading

out, portfile = sys.argv[1], sys.argv[2]
status = int(sys.argv[3]) if len(sys.argv) > 3 else 200


class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        n = int(self.headers.get("Content-Length", 0))
        body = self.rfile.read(n)
        with open(out, "a") as f:
            f.write(json.dumps({"path": self.path,
                                "type": self.headers.get("Content-Type"),
                                "body": json.loads(body)}) + "\n")
        self.send_response(status)
        self.end_headers()

    def log_message(self, *a):
        pass


srv = http.server.HTTPServer(("127.0.0.1", 0), H)
with open(portfile, "w") as f:
    f.write(str(srv.server_address[1]))
threading.Timer(60, srv.shutdown).start()
srv.serve_forever()
