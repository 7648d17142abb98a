/// The agent's configuration file exactly as spec/cli-and-config.md shows it, comments and all:
/// tests that decode it, validate it against the published schema or break it byte by byte
/// start from the one copy.
public enum SpecExample {
    public static let config = """
    gateway:
      id: lobby                  # default: host name
      position: {x: 0, y: 0, z: 2.4}   # metres in the site frame; enables site-frame positions
      heading_deg: 90            # site-frame direction of the antenna boresight (azimuth 0)

    device:
      port: auto                 # auto (first DWM3001C by USB id) | /dev/ttyACM0 | /dev/dwm3001c | tcp://host:port
      baud: 115200
      channel: 9                 # 5 | 9
      role: controller           # controller (initiator) | controlee (responder)
      session_id: 42
      address: 0x0000            # this device's short MAC address
      ranging_interval: 200ms
      peers:
        - {address: 0x0001, name: tool-cart}
        - {address: 0x0002, name: phone-anna}

    mqtt:
      url: mqtt://127.0.0.1:1883 # mqtts:// for TLS
      client_id: uwb2mqtt-lobby  # default: uwb2mqtt-<gateway id>
      username: gateway          # optional
      password_file: /etc/uwb2mqtt/mqtt.password   # never the password itself in this file; one
                                                   # trailing newline is ignored
      ca_file: null              # TLS: CA bundle; cert_file/key_file for client certificates
      base_topic: uwb2mqtt
      keepalive: 30s
      qos_ranges: 0
      state_interval: 1s
      metrics_interval: 30s
      home_assistant: false
      spool_dir: /var/lib/uwb2mqtt
      spool_max_bytes: 64MiB

    rules: /etc/uwb2mqtt/rules.yaml
    log_level: info              # error | warning | info | debug
    """
}
