import Testing
import Watch

/// The site map as characters: where the gateways, the tags and the zones land, and their labels.
@Suite struct SiteMapTests {
    /// Three gateways on a 6 × 4 m floor, a 2 × 2 m zone in the south-west corner and a tag in the north-east.
    static func site(tagAt position: MapPoint? = MapPoint(x: 5, y: 2.4)) -> (SiteView, [(id: String, position: MapPoint)]) {
        var site = SiteView(name: "lobby", zones: [SiteZone(name: "desk", polygon: [MapPoint(x: 0, y: 0), MapPoint(x: 2, y: 0), MapPoint(x: 2, y: 2), MapPoint(x: 0, y: 2)])])
        var cart = SiteTag(name: "cart")
        cart.position = position
        cart.accuracy = 0.04
        site.tags["cart"] = cart
        return (site, [("gw-a", MapPoint(x: 0, y: 0)), ("gw-b", MapPoint(x: 6, y: 0)), ("gw-c", MapPoint(x: 6, y: 4))])
    }

    @Test func aSmallSiteNorthUpAndSquare() {
        let (site, gateways) = Self.site()
        // 6 m over 15 columns and 4 m over 5 rows: a row is twice a column's 0.4 m, as a cell is twice as tall as wide.
        let map = SiteMap(site: site, gateways: gateways, width: 30, height: 8)
        #expect(map.metresPerColumn == 0.4)
        #expect(map.rows == [
            "┌─ lobby ────────────┐",
            "│             gw-c◆  │",
            "│                    │",
            "│      cart ±4cm●    │",
            "│  ······            │",
            "│  ·desk·            │",
            "│  ◆gw-a·     gw-b◆  │",
            "└────────────────────┘",
        ])
    }

    @Test func aPoorFixIsARingAroundTheTag() {
        var (site, gateways) = Self.site(tagAt: MapPoint(x: 4, y: 2))
        site.tags["cart"]?.accuracy = 1.2
        // 1.2 m is 3 columns across and 1.5 rows down; the tag's label goes over the ring and the zone's edge.
        let map = SiteMap(site: site, gateways: gateways, width: 30, height: 8)
        #expect(map.rows == [
            "┌─ lobby ────────────┐",
            "│             gw-c◆  │",
            "│          ◦◦◦◦◦     │",
            "│         ◦◦   ◦◦    │",
            "│  cart ±1.2m● ◦◦    │",
            "│  ·desk·  ◦◦◦◦◦     │",
            "│  ◆gw-a·     gw-b◆  │",
            "└────────────────────┘",
        ])
    }

    /// An accuracy of 100 km on a map of a few metres: the ring lies off the canvas, and drawing
    /// it costs the canvas's cells, not the ring's (it looped over some 10^13 cells before).
    @Test func aRingFarWiderThanTheMapIsNotDrawn() {
        var (site, gateways) = Self.site(tagAt: MapPoint(x: 4, y: 2))
        site.tags["cart"]?.accuracy = 100_000
        let map = SiteMap(site: site, gateways: gateways, width: 30, height: 8)
        #expect(map.rows.count == 8 && !map.rows.joined().contains("◦"))
        #expect(map.rows.contains { $0.contains("cart ±") })
    }

    @Test func aTagWithoutAPositionIsNotDrawn() {
        let (site, gateways) = Self.site(tagAt: nil)
        let rows = SiteMap(site: site, gateways: gateways, width: 30, height: 8).rows
        #expect(rows.count == 8)
        #expect(!rows.joined().contains("●") && !rows.joined().contains("cart"))
    }

    @Test func nothingPlacedIsNoMap() {
        let map = SiteMap(site: SiteView(name: "lobby"), gateways: [], width: 80, height: 12)
        #expect(map.rows.isEmpty)
    }

    @Test func aLongThinSiteTakesFewRows() {
        // 30 m east-west, 2 m deep: the width sets the scale, and the rows shrink to the content.
        let site = SiteView(name: "hall")
        let map = SiteMap(site: site, gateways: [("w", MapPoint(x: 0, y: 0)), ("e", MapPoint(x: 30, y: 2))], width: 33, height: 12)
        #expect(map.metresPerColumn == 1)
        #expect(map.rows == [
            "┌─ hall ────────────────────────┐",
            "│                             e◆│",
            "│◆w                             │",
            "└───────────────────────────────┘",
        ])
    }
}
