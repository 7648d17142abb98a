/// The files of the page of `watch --http`, by path, with their media types: the page at `/`,
/// its style and its script. The live state comes on `/events` (`WatchPageFrames`).
public enum WatchPageFiles {
    public struct File: Sendable {
        public let path: String
        public let contentType: String
        public let bytes: [UInt8]
    }

    public static let all: [File] = [
        File(path: "/", contentType: "text/html; charset=utf-8", bytes: Array(WatchPageHTML.text.utf8)),
        File(path: "/watch.css", contentType: "text/css; charset=utf-8", bytes: Array(WatchPageStyle.text.utf8)),
        File(path: "/watch.js", contentType: "text/javascript; charset=utf-8", bytes: Array(WatchPageScript.text.utf8)),
    ]
}
