import CanteenCore
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1

/// Turns every error into `{"error": {"code", "message", "field"}}` with a fitting status.
/// Nothing a client sends produces a 500; unexpected failures are logged and answered as
/// `internal_error` without internals. Part of `APIMiddleware`.
struct ErrorAnswers: Sendable {
    let presenter: Presenter
    let methods: RouteMethods

    /// The answer to a request that failed with `error`.
    func response(for error: any Error, to request: Request, context: CanteenRequestContext) async -> Response {
        var canteenError = Self.canteenError(for: error)
        let allowed = canteenError.code == .routeNotFound ? await methods.methods(for: request.head.path ?? "/") : []
        if !allowed.isEmpty {
            canteenError = CanteenError(
                .invalid, code: .methodNotAllowed,
                message: "\(request.method.rawValue) is not served here; use \(allowed.joined(separator: ", "))")
        }
        if canteenError.kind == .unavailable {
            // The answer's own log line says 503; a cause (SQLite busy) is logged here, never sent.
            if let cause = canteenError.underlying {
                context.logger.notice(
                    "request failed: database unavailable",
                    metadata: ["cause": "\(Self.describe(cause))"])
            } else {
                context.logger.debug("request failed: database unavailable")
            }
        }
        if canteenError.kind == .internal {
            // Logged in full (a corrupt row is named there); the client learns only that it failed.
            context.logger.error(
                "request failed",
                metadata: ["error": "\(Redaction.redactingTokens(String(reflecting: error)))"])
            canteenError = CanteenError(.internal, code: .internalError, message: "something went wrong on our side")
        }
        let presentation = presenter.presentation(for: request, cafe: nil)
        let problems = (error as? ValidationError)?.problems ?? []
        var response = ErrorResponse.response(
            for: canteenError, message: presentation.message(for: canteenError),
            problems: problems.count > 1 ? problems : [])
        response.headers[.contentLanguage] = presentation.contentLanguage
        if !allowed.isEmpty { response.headers[.allow] = allowed.joined(separator: ", ") }
        return response
    }

    /// An error as the log shows it: in full, any token in it redacted.
    static func describe(_ error: any Error) -> String {
        Redaction.redactingTokens(String(reflecting: error))
    }

    static func canteenError(for error: any Error) -> CanteenError {
        switch error {
        case let error as CanteenError:
            return error
        case let error as any CanteenErrorConvertible:
            return error.canteenError
                ?? CanteenError(
                    .internal, code: .internalError, message: "something went wrong on our side",
                    underlying: error)
        case let error as ValidationError:
            return error.firstError
        case let error as HTTPParserError:
            // The client's request broke off or is not HTTP: say so (400), never a 500.
            if error == .invalidEOFState {
                return CanteenError(
                    .malformed, code: .requestBodyIncomplete,
                    message: "the request body ended before its Content-Length (the connection was closed)")
            }
            return CanteenError(.malformed, code: .badRequest, message: "the request is not valid HTTP/1.1 (\(error))")
        case is NIOTooManyBytesError:
            return CanteenError(
                .invalid, code: .bodyTooLarge,
                message: "the request body is larger than \(APILimits.maxBodyBytes) bytes")
        case let error as HTTPError:
            switch error.status {
            case .notFound:
                return CanteenError(.notFound, code: .routeNotFound, message: "no such route")
            case .methodNotAllowed:
                return CanteenError(.invalid, code: .methodNotAllowed, message: "this route does not take that method")
            case .contentTooLarge:
                return CanteenError(
                    .invalid, code: .bodyTooLarge,
                    message: "the request body is larger than \(APILimits.maxBodyBytes) bytes")
            default:
                return CanteenError(
                    error.status.code < 500 ? .invalid : .internal,
                    code: error.status.code < 500 ? .badRequest : .internalError,
                    message: error.body ?? error.status.reasonPhrase)
            }
        default:
            return CanteenError(.internal, code: .internalError, message: "something went wrong on our side")
        }
    }
}

/// The JSON error body and its HTTP status.
public enum ErrorResponse {
    struct Body: Encodable {
        struct Detail: Encodable {
            let code: ErrorCode
            let message: String
            let field: String?
            /// Every problem of a document that had several (the first is `field`/`message`).
            let problems: [Problem]

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(code, forKey: .code)
                try container.encode(message, forKey: .message)
                try container.encode(field, forKey: .field)
                if !problems.isEmpty { try container.encode(problems, forKey: .problems) }
            }

            enum CodingKeys: String, CodingKey { case code, message, field, problems }
        }

        struct Problem: Encodable {
            let code: ErrorCode
            let field: String
            let message: String
        }

        let error: Detail
    }

    /// The HTTP status of an error: transport-level codes have their own, domain errors follow
    /// their kind.
    public static func status(for error: CanteenError) -> HTTPResponse.Status {
        switch error.code {
        case .bodyTooLarge: return .contentTooLarge
        case .headersTooLarge: return .requestHeaderFieldsTooLarge
        case .unsupportedMediaType: return .unsupportedMediaType
        case .unsupportedTransferCoding: return .notImplemented
        case .methodNotAllowed: return .methodNotAllowed
        default: break
        }
        switch error.kind {
        case .invalid: return .unprocessableContent
        case .malformed: return .badRequest
        case .notFound: return .notFound
        case .conflict: return .conflict
        case .unauthenticated: return .unauthorized
        case .forbidden: return .forbidden
        case .preconditionFailed: return .preconditionFailed
        case .internal: return .internalServerError
        case .unavailable: return .serviceUnavailable
        case .throttled: return .tooManyRequests
        }
    }

    public static func response(
        for error: CanteenError, message: String? = nil,
        problems: [ValidationProblem] = []
    ) -> Response {
        var headers = HTTPFields()
        if error.kind == .unauthenticated { headers[.wwwAuthenticate] = "Bearer" }
        // The database comes back within seconds (a restart, a failover): say when to try again.
        if error.kind == .unavailable { headers[.retryAfter] = "1" }
        if error.kind == .throttled { headers[.retryAfter] = error.parameters["seconds"] ?? "60" }
        // The rest of such a request is not read: the connection closes after the answer.
        if closesConnection(error.code) { headers[.connection] = "close" }
        return JSONResponse.make(
            encoded: body(for: error, message: message, problems: problems),
            status: status(for: error), headers: headers)
    }

    /// `{"error": {"code", "message", "field"}}` as bytes.
    public static func body(
        for error: CanteenError, message: String? = nil,
        problems: [ValidationProblem] = []
    ) -> Data {
        // An error may echo what the client sent; a token secret in it is never repeated.
        let redact = Redaction.redactingTokens
        let body = Body(
            error: .init(
                code: error.code, message: redact(message ?? error.message), field: error.field.map(redact),
                problems: problems.map {
                    Body.Problem(code: $0.code, field: redact($0.path), message: redact($0.message))
                }))
        return (try? JSONResponse.encoder.encode(body)) ?? Data()
    }

    /// Errors after which the connection is closed.
    static func closesConnection(_ code: ErrorCode) -> Bool {
        code == .bodyTooLarge || code == .requestBodyIncomplete || code == .headersTooLarge
    }
}
