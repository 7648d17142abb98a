#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Users and groups by id, as `doctor` names them in its hints.
enum Accounts {
    static func userName(_ uid: uid_t) -> String {
        if let entry = getpwuid(uid), let name = entry.pointee.pw_name { return String(cString: name) }
        return "\(uid)"
    }

    static func groupName(_ gid: gid_t) -> String {
        if let entry = getgrgid(gid), let name = entry.pointee.gr_name { return String(cString: name) }
        return "\(gid)"
    }

    /// Users listed as members of a group in the group database (not those with it as primary group).
    static func groupMembers(_ gid: gid_t) -> [String] {
        guard let entry = getgrgid(gid), var member = entry.pointee.gr_mem else { return [] }
        var names: [String] = []
        while let name = member.pointee {
            names.append(String(cString: name))
            member += 1
        }
        return names
    }

    /// The groups this process has now (effective group and supplementary groups).
    static func processGroups() -> Set<gid_t> {
        var groups = [gid_t](repeating: 0, count: Int(max(getgroups(0, nil), 0)) + 1)
        let count = getgroups(Int32(groups.count), &groups)
        return Set(groups.prefix(Int(max(count, 0)))).union([getegid()])
    }
}
