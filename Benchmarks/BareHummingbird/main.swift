// bare-hummingbird --port P: the reference of `make bench`'s pipeline phase (issue 28). Hummingbird
// as its own README starts it, with no middleware and one route answering `GET /healthz` with
// the same body as Canteen's (`{"status":"ok"}`), so that Canteen's healthz rate divided by this
// one is what Canteen's request pipeline (middleware, access rules, log line, metrics) leaves.
import Foundation
import Hummingbird
import Logging

var port = 0
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    guard argument == "--port", let value = arguments.next().flatMap(Int.init) else {
        FileHandle.standardError.write(Data("usage: bare-hummingbird --port P\n".utf8))
        exit(2)
    }
    port = value
}

var logger = Logger(label: "bare-hummingbird")
logger.logLevel = .warning
let router = Router()
router.get("/healthz") { _, _ -> Response in
    var headers = HTTPFields()
    headers[.contentType] = "application/json; charset=utf-8"
    return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: #"{"status":"ok"}"#)))
}
let app = Application(
    router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)), logger: logger)
try await app.runService()
