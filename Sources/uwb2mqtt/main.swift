// The uwb2mqtt executable: hands the arguments to the command line (Commands) and exits with
// its status. Nothing else lives here (C callbacks in main.swift would run as main-actor code).
import Commands

#if canImport(Glibc)
import Glibc
#endif

exit(CommandLineTool.main(Array(CommandLine.arguments.dropFirst())))
