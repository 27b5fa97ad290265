// Unit tests of simlib's intervalset STAND-IN, run by scripts/batsim.sh after
// building it. Expected strings follow Batsim's docs/interval-set.rst
// (canonical form: disjoint, maximal, sorted intervals, "a" for [a,a]).
#include "intervalset.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

static int failures = 0;
static int checks = 0;

#define CHECK(cond) do { ++checks; if (!(cond)) { ++failures; \
    std::fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); } } while (0)
#define CHECK_EQ_STR(got, want) do { ++checks; std::string g_ = (got), w_ = (want); \
    if (g_ != w_) { ++failures; std::fprintf(stderr, "FAIL %s:%d: %s gave '%s', want '%s'\n", \
    __FILE__, __LINE__, #got, g_.c_str(), w_.c_str()); } } while (0)

template <typename F> static bool throws(F f)
{
    try { f(); } catch (const std::exception &) { return true; }
    return false;
}

static std::string canon(const std::string & s)
{
    return IntervalSet::from_string_hyphen(s, " ", "-").to_string_hyphen(" ", "-");
}

int main()
{
    // Every representation of {1,2,3,5,7} the docs list reads as the same set.
    for (const char * s : {"1-3 5 7", "1-2 3 5 7", "1 2 3 5 7", "1-2 1-3 5 7", "5 2-2 7 1-3"})
        CHECK_EQ_STR(canon(s), "1-3 5 7");
    CHECK_EQ_STR(canon("1-3 4-5"), "1-5");             // maximal intervals
    CHECK_EQ_STR(canon("37-42"), "37-42");
    CHECK_EQ_STR(canon("4-4"), "4");                   // [a,a] written a
    CHECK_EQ_STR(canon("0"), "0");
    CHECK_EQ_STR(canon(""), "");
    CHECK_EQ_STR(canon("10-12 0-3 4 6-9"), "0-4 6-12");
    // canon -> set -> canon is the identity
    for (const char * s : {"0-1023", "0 2 4", "3-5 9-10 12"})
        CHECK_EQ_STR(canon(s), s);
    // other separators
    CHECK_EQ_STR(IntervalSet::from_string_hyphen("1-3,5,7").to_string_hyphen(), "1-3,5,7");
    CHECK_EQ_STR(IntervalSet::from_string_hyphen("1:3;5", ";", ":").to_string_hyphen(" ", "-"), "1-3 5");
    CHECK_EQ_STR(IntervalSet::from_string_hyphen("1-3 5 7", " ").to_string_brackets(), "[1,3]∪[5]∪[7]");
    CHECK_EQ_STR(IntervalSet::from_string_hyphen("1-3 7", " ").to_string_elements(" "), "1 2 3 7");
    // malformed strings throw
    CHECK(throws([] { IntervalSet::from_string_hyphen("1-", " ", "-"); }));
    CHECK(throws([] { IntervalSet::from_string_hyphen("a", " ", "-"); }));
    CHECK(throws([] { IntervalSet::from_string_hyphen("5-3", " ", "-"); }));
    CHECK(throws([] { IntervalSet::from_string_hyphen("1  2", " ", "-"); }));

    // construction, insert, remove
    IntervalSet s;
    CHECK(s.is_empty());
    CHECK(s.size() == 0);
    s.insert(3);
    s.insert(1);
    s.insert(2);
    CHECK_EQ_STR(s.to_string_hyphen(" "), "1-3");
    s.insert(IntervalSet::ClosedInterval(7, 9));
    s.insert(IntervalSet(5));
    CHECK_EQ_STR(s.to_string_hyphen(" "), "1-3 5 7-9");
    CHECK(s.size() == 7);
    s.remove(8);
    CHECK_EQ_STR(s.to_string_hyphen(" "), "1-3 5 7 9");
    s.remove(IntervalSet::ClosedInterval(2, 5));
    CHECK_EQ_STR(s.to_string_hyphen(" "), "1 7 9");
    s.remove(100); // absent: no-op
    CHECK_EQ_STR(s.to_string_hyphen(" "), "1 7 9");
    s.clear();
    CHECK(s.is_empty());

    // operators
    IntervalSet a = IntervalSet::from_string_hyphen("0-9", " ");
    IntervalSet b = IntervalSet::from_string_hyphen("5-14 20", " ");
    CHECK_EQ_STR((a + b).to_string_hyphen(" "), "0-14 20");
    CHECK_EQ_STR((a - b).to_string_hyphen(" "), "0-4");
    CHECK_EQ_STR((b - a).to_string_hyphen(" "), "10-14 20");
    CHECK_EQ_STR((a & b).to_string_hyphen(" "), "5-9");
    CHECK((a & IntervalSet::from_string_hyphen("20-30", " ")).is_empty());
    IntervalSet c = a;
    c += IntervalSet(10);
    CHECK_EQ_STR(c.to_string_hyphen(" "), "0-10");
    c -= IntervalSet::from_string_hyphen("3 5", " ");
    CHECK_EQ_STR(c.to_string_hyphen(" "), "0-2 4 6-10");
    c &= IntervalSet::from_string_hyphen("2-6", " ");
    CHECK_EQ_STR(c.to_string_hyphen(" "), "2 4 6");
    CHECK(IntervalSet::from_string_hyphen("1 2 3", " ") == IntervalSet::from_string_hyphen("1-3", " "));
    CHECK(IntervalSet::from_string_hyphen("1 3", " ") != IntervalSet::from_string_hyphen("1-3", " "));
    IntervalSet d;
    d = IntervalSet::ClosedInterval(4, 6);
    CHECK_EQ_STR(d.to_string_hyphen(" "), "4-6");

    // indexing, first element, left, membership
    IntervalSet e = IntervalSet::from_string_hyphen("2-4 8 10-11", " ");
    std::vector<int> want = {2, 3, 4, 8, 10, 11};
    for (size_t i = 0; i < want.size(); ++i)
        CHECK(e[static_cast<int>(i)] == want[i]);
    CHECK(throws([&] { (void) e[6]; }));
    CHECK(throws([&] { (void) e[-1]; }));
    CHECK(e.first_element() == 2);
    CHECK(throws([] { (void) IntervalSet().first_element(); }));
    CHECK_EQ_STR(e.left(4).to_string_hyphen(" "), "2-4 8");
    CHECK_EQ_STR(e.left(2).to_string_hyphen(" "), "2-3");
    CHECK(e.left(0).is_empty());
    CHECK(throws([&] { (void) e.left(7); }));
    CHECK(e.contains(8) && !e.contains(9) && e.contains(IntervalSet::ClosedInterval(10, 11)));
    CHECK(!e.contains(IntervalSet::ClosedInterval(4, 8)));
    CHECK(IntervalSet::from_string_hyphen("3 10", " ").is_subset_of(e));
    CHECK(!IntervalSet::from_string_hyphen("3 9", " ").is_subset_of(e));
    CHECK(IntervalSet().is_subset_of(e));

    // iterators
    std::vector<int> seen;
    for (auto it = e.elements_begin(); it != e.elements_end(); ++it)
        seen.push_back(*it);
    CHECK(seen == want);
    CHECK(IntervalSet().elements_begin() == IntervalSet().elements_end());
    int n_intervals = 0;
    for (auto it = e.intervals_begin(); it != e.intervals_end(); ++it)
        ++n_intervals;
    CHECK(n_intervals == 3);

    // extreme values do not overflow on adjacency checks
    IntervalSet big;
    big.insert(IntervalSet::ClosedInterval(2147483600, 2147483647));
    big.insert(0);
    CHECK_EQ_STR(big.to_string_hyphen(" "), "0 2147483600-2147483647");
    CHECK(big.size() == 49);

    if (failures)
    {
        std::fprintf(stderr, "intervalset stand-in: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    std::printf("intervalset stand-in: all %d checks passed\n", checks);
    return 0;
}
