import UCI
import Vocabulary

/// An iPhone app's two requests (apple-interop.md §5): `phone_session` with `"platform": "ios"`
/// asks for the gateway's accessory configuration data, which the app hands iOS;
/// `phone_session_start` brings back what iOS answered, the shareable configuration data, from
/// which the gateway opens the session iOS chose.
enum IPhoneSessionRequest {
    /// `phone_session` with `"platform": "ios"`.
    struct Accessory: Equatable, Sendable {
        var name: String
        /// nil: `phones.apple.preferred_update_rate`.
        var updateRate: AccessoryConfigurationData.PreferredUpdateRate?

        /// The body the parser below reads.
        static let bodySchema = JSONSchema.object([
            Request.idProperty, PhoneSessionRequest.nameProperty,
            .init(.platform, JSONSchema.constant(.string(PhoneSessionRequest.Platform.ios.rawValue))),
            .init(.updateRate, JSONSchema.enumeration(AppleAccessorySettings.updateRateNames)
                    .described("NI's preferred update rate; default phones.apple.preferred_update_rate"), required: false),
        ]).described("an iPhone asking for the gateway's accessory configuration data (apple-interop.md)")

        static func parse(_ body: [String: JSONValue]) -> Result<Accessory, PhoneRequestError> {
            do throws(PhoneRequestError) {
                // Jetpack's keys mean nothing to iOS: an app that sends them has mixed up the platforms.
                try PhoneSessionRequest.rejectUnknownKeys(of: body, declaredBy: bodySchema)
                let name = try PhoneSessionRequest.name(in: body)
                switch body["update_rate"] {
                case nil: return .success(Accessory(name: name, updateRate: nil))
                case let .string(text)? where AppleAccessorySettings.updateRate(named: text) != nil:
                    return .success(Accessory(name: name, updateRate: AppleAccessorySettings.updateRate(named: text)))
                default: throw PhoneRequestError("update_rate must be automatic, infrequent or user_interactive (NI's preferred update rates)")
                }
            } catch {
                return .failure(error)
            }
        }
    }

    /// `phone_session_start`.
    struct Start: Equatable, Sendable {
        var name: String
        var shareable: ShareableConfigurationData

        static let requestName = "phone_session_start"

        /// The body the parser below reads.
        static let bodySchema = JSONSchema.object([
            Request.idProperty, PhoneSessionRequest.nameProperty,
            .init(.shareableConfigurationData, JSONSchema.string.with("contentEncoding", "base64")
                    .described("what iOS gave the app in session(_:didGenerateShareableConfigurationData:for:)")),
        ])

        static func parse(_ body: [String: JSONValue]) -> Result<Start, PhoneRequestError> {
            do throws(PhoneRequestError) {
                try PhoneSessionRequest.rejectUnknownKeys(of: body, declaredBy: bodySchema)
                let name = try PhoneSessionRequest.name(in: body)
                guard case let .string(text)? = body["shareable_configuration_data"] else {
                    throw PhoneRequestError("shareable_configuration_data is required: what iOS gave the app in "
                                            + "session(_:didGenerateShareableConfigurationData:for:), as base64")
                }
                guard let bytes = Base64.decode(text) else {
                    throw PhoneRequestError("shareable_configuration_data is not base64 (Data.base64EncodedString() of what iOS gave)")
                }
                do throws(ShareableConfigurationData.Problem) {
                    return .success(Start(name: name, shareable: try ShareableConfigurationData(bytes: bytes)))
                } catch {
                    throw PhoneRequestError(error.message)
                }
            } catch {
                return .failure(error)
            }
        }
    }
}
