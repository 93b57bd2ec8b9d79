import Basics
import Testing

@Suite struct HexTests {
    @Test func bytesAreTwoLowercaseDigitsEach() {
        #expect(Hex.string([]) == "")
        #expect(Hex.string([0x00, 0x0f, 0xa0, 0xff]) == "000fa0ff")
        #expect(Hex.string(0...255).count == 512)
    }
}

@Suite struct ScalarEscapingTests {
    @Test func everyScalarIsReplacedAlsoWhereACombiningMarkFollowsIt() {
        // A quote and an accent are one `Character`, which `replacingOccurrences(of:with:)` leaves
        // as it is (Swift 6.3's Foundation on Linux).
        let text = "a\"\u{301}b\"c"
        let doubled = text.replacingEach("\"", with: "\"\"")
        #expect(doubled.unicodeScalars.elementsEqual("a\"\"\u{301}b\"\"c".unicodeScalars))
        #expect("no quote".replacingEach("\"", with: "\"\"") == "no quote")
        #expect("👩‍👩‍👧 '".replacingEach("'", with: "''") == "👩‍👩‍👧 ''")
    }
}

@Suite struct FixedWindowBudgetTests {
    func spend(_ budget: inout FixedWindowBudget, in window: Int64) -> Bool {
        budget.spend(in: window)
    }

    @Test func aWindowAllowsItsLimitAndTheNextRefillsIt() {
        var budget = FixedWindowBudget(limit: 2)
        #expect(spend(&budget, in: 0))
        #expect(spend(&budget, in: 0))
        #expect(!spend(&budget, in: 0), "the third request of a window of two")
        #expect(budget.remaining == 0)
        #expect(budget.remaining(in: 1) == 2, "a later window would find the full limit")
        #expect(spend(&budget, in: 1))
        #expect(budget.remaining == 1)
        #expect(budget.window == 1)
    }

    @Test func anEarlierWindowNeverRefills() {
        var budget = FixedWindowBudget(limit: 1, window: 5)
        #expect(spend(&budget, in: 5))
        #expect(!spend(&budget, in: 4))
        #expect(budget.remaining(in: 4) == 0)
    }

    @Test func aRefillIsClampedAndARestartKeepsWhatIsLeft() {
        var budget = FixedWindowBudget(limit: 10, remaining: 3, window: 2)
        budget.refill(to: 99)
        #expect(budget.remaining == 10)
        budget.refill(to: -1)
        #expect(budget.remaining == 0)
        budget.refill(to: 4)
        budget.restart(at: 0)
        #expect(budget.window == 0)
        #expect(budget.remaining(in: 0) == 4)
    }

    @Test func windowsAreNumberedFromTheOrigin() {
        #expect(FixedWindowBudget.window(at: .zero, length: .seconds(60)) == 0)
        #expect(FixedWindowBudget.window(at: .milliseconds(59_999), length: .seconds(60)) == 0)
        #expect(FixedWindowBudget.window(at: .seconds(60), length: .seconds(60)) == 1)
        #expect(FixedWindowBudget.window(at: .seconds(1_700_000_000), length: .seconds(3600)) == 472_222)
    }
}
