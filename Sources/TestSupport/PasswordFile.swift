/// A mosquitto password file made with the real `mosquitto_passwd -b -c`, so the test exercises the
/// broker's own hashing and lookup rather than a hand-written file format.
public enum MosquittoPasswordFile {
    /// Creates `passwd` in `directory` with one user and returns its path.
    public static func create(in directory: TemporaryDirectory, username: String, password: String)
        async throws(TestSupportError) -> String {
        let path = directory.file("passwd")
        try await runCommand("/usr/bin/mosquitto_passwd", ["-b", "-c", path, username, password], in: directory,
                             describedAs: "mosquitto_passwd -b -c \(path) \(username) <password>")
        return path
    }

    /// Creates `passwd` in `directory` with every (username, password) and returns its path.
    public static func create(in directory: TemporaryDirectory, users: [(String, String)]) async throws(TestSupportError) -> String {
        let path = directory.file("passwd")
        for (index, (username, password)) in users.enumerated() {
            try await runCommand("/usr/bin/mosquitto_passwd", ["-b"] + (index == 0 ? ["-c"] : []) + [path, username, password],
                                 in: directory, describedAs: "mosquitto_passwd -b \(path) \(username) <password>")
        }
        return path
    }
}
