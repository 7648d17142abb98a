import Testing
@testable import UCIBench

/// The table `make bench` prints judges the agent against both floors of its own messages: the
/// goal against the replaying floor, and the proposed one against the rendered floor, each met
/// only when it holds at every rate.
@Suite struct OwnFloorGoalTests {
    static func report(agent: [Int: Double], replayed: [Int: Double], rendered: [Int: Double]) -> String {
        var report = BenchReport()
        var swift = GatewayResult(name: "uwb2mqtt")
        for (rate, cost) in agent.sorted(by: { $0.key < $1.key }) {
            // A window of 1,000 measurements: CPU seconds are the cost per measurement × 1,000.
            swift.phases.append(PhaseResult(targetRate: rate, seconds: 10, offeredRate: Double(rate), deliveredRate: Double(rate),
                                            delivered: 1_000, cpuSched: cost * 1e-3, cpuTicks: cost * 1e-3, latency: nil,
                                            notifications: 125, threads: 1, contextSwitches: nil))
        }
        report.swift = swift
        report.ownTraffic = agent.keys.sorted().map { BenchReport.OwnTrafficFigure(rate: $0, notifications: 125, packets: 16, acknowledged: 0.25, bytes: 5_400) }
        report.ownFloor = replayed.sorted { $0.key < $1.key }.map { FloorFigure(rate: $0.key, microsecondsPerMeasurement: $0.value, delivered: nil) }
        report.renderedFloor = rendered.sorted { $0.key < $1.key }.map { FloorFigure(rate: $0.key, microsecondsPerMeasurement: $0.value, delivered: nil) }
        return report.table()
    }

    @Test func eachGoalIsMetOnlyAtEveryRate() {
        let notMet = Self.report(agent: [400: 30, 10_000: 15], replayed: [400: 12, 10_000: 4], rendered: [400: 24, 10_000: 10])
        #expect(notMet.contains("goal ≤ 1.3× at every rate: not met"), "\(notMet)")
        // 30 / 24 = 1.25 at 400/s, but 15 / 10 = 1.5 at 10,000/s.
        #expect(notMet.contains("proposed instead, uwb2mqtt ≤ 1.3× the rendered floor at every rate: not met"), "\(notMet)")
        #expect(notMet.contains("1.25× (uwb2mqtt/rendered)") && notMet.contains("2.00×"), "the rendered floor's ratios shown")

        let met = Self.report(agent: [400: 30, 10_000: 15], replayed: [400: 24, 10_000: 12], rendered: [400: 24, 10_000: 12])
        #expect(met.contains("goal ≤ 1.3× at every rate: met"), "\(met)")
        #expect(met.contains("the rendered floor at every rate: met"), "\(met)")
    }

    @Test func withoutTheRenderedFloorNoProposedGoalIsJudged() {
        let table = Self.report(agent: [400: 30], replayed: [400: 12], rendered: [:])
        #expect(table.contains("goal ≤ 1.3× at every rate: not met"))
        #expect(!table.contains("proposed instead"))
    }
}
