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

        static func parse(_ body: [String: JSONValue]) -> Result<Accessory, PhoneRequestError> {
            do throws(PhoneRequestError) {
                // Jetpack's keys mean nothing to iOS: an app that sends them has mixed up the platforms.
                try PhoneSessionRequest.rejectUnknownKeys(of: body, known: ["id", "name", "platform", "update_rate"])
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

        static func parse(_ body: [String: JSONValue]) -> Result<Start, PhoneRequestError> {
            do throws(PhoneRequestError) {
                try PhoneSessionRequest.rejectUnknownKeys(of: body, known: ["id", "name", "shareable_configuration_data"])
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
