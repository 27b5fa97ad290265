// simlib's STAND-IN for the intervalset library (pkg-config name
// `intervalset`) that Batsim links against. It is NOT the upstream library:
// scripts/batsim.sh builds it only when asked (--intervalset=standin) and
// marks the prefix with an INTERVALSET-STANDIN file so every user is warned.
//
// A set of integers kept as sorted, disjoint, non-adjacent closed intervals
// [a, b]. The interface is the part Batsim v4.2.1 compiles against (plus a
// few neighbours of it): construction, insert/remove, the set operators,
// indexing, the element iterator, the interval iterator and Batsim's string
// forms (docs/interval-set.rst: "1-3 5 7").
#pragma once

#include <iterator>
#include <string>
#include <utility>
#include <vector>

class IntervalSet
{
public:
    //! A closed interval [first, second], first <= second.
    typedef std::pair<int, int> ClosedInterval;
    typedef std::vector<ClosedInterval>::const_iterator const_intervals_iterator;

    //! Walks the elements of the set in increasing order.
    class element_const_iterator
    {
    public:
        typedef std::forward_iterator_tag iterator_category;
        typedef int value_type;
        typedef std::ptrdiff_t difference_type;
        typedef const int * pointer;
        typedef int reference;

        element_const_iterator() = default;
        element_const_iterator(const_intervals_iterator it, const_intervals_iterator end);
        int operator*() const { return _value; }
        element_const_iterator & operator++();
        element_const_iterator operator++(int);
        bool operator==(const element_const_iterator & other) const;
        bool operator!=(const element_const_iterator & other) const { return !(*this == other); }

    private:
        const_intervals_iterator _it;
        const_intervals_iterator _end;
        int _value = 0;
    };

    IntervalSet() = default;
    IntervalSet(int element);
    IntervalSet(const ClosedInterval & interval);
    IntervalSet(const IntervalSet & other) = default;
    IntervalSet & operator=(const IntervalSet & other) = default;
    IntervalSet & operator=(const ClosedInterval & interval);

    //! Parses "1-3,5,7" (sep ",", joiner "-"); any order, overlaps allowed.
    //! Throws std::invalid_argument on a malformed string.
    static IntervalSet from_string_hyphen(const std::string & str,
                                          const std::string & sep = ",",
                                          const std::string & joiner = "-");
    static IntervalSet empty_interval_set() { return IntervalSet(); }

    void insert(int element);
    void insert(const ClosedInterval & interval);
    void insert(const IntervalSet & other);
    void remove(int element);
    void remove(const ClosedInterval & interval);
    void remove(const IntervalSet & other);
    void clear() { _intervals.clear(); }

    //! The nb_elements smallest elements; throws std::out_of_range if the
    //! set has fewer.
    IntervalSet left(int nb_elements) const;
    //! The smallest element; throws std::out_of_range on an empty set.
    int first_element() const;
    //! Number of elements (not of intervals).
    unsigned int size() const;
    bool is_empty() const { return _intervals.empty(); }
    bool contains(int element) const;
    bool contains(const ClosedInterval & interval) const;
    bool is_subset_of(const IntervalSet & other) const;

    element_const_iterator elements_begin() const;
    element_const_iterator elements_end() const;
    const_intervals_iterator intervals_begin() const { return _intervals.begin(); }
    const_intervals_iterator intervals_end() const { return _intervals.end(); }

    //! "[1,3]∪[5]∪[7]"-like form (a one-element interval shows one number).
    std::string to_string_brackets(const std::string & union_str = "∪",
                                   const std::string & opening_bracket = "[",
                                   const std::string & closing_bracket = "]",
                                   const std::string & sep = ",") const;
    //! Batsim's canonical form with sep " ": "1-3 5 7".
    std::string to_string_hyphen(const std::string & sep = ",",
                                 const std::string & joiner = "-") const;
    //! Every element: "1,2,3,5,7".
    std::string to_string_elements(const std::string & sep = ",") const;

    bool operator==(const IntervalSet & other) const { return _intervals == other._intervals; }
    bool operator!=(const IntervalSet & other) const { return !(*this == other); }
    IntervalSet & operator+=(const IntervalSet & other);
    IntervalSet & operator-=(const IntervalSet & other);
    IntervalSet & operator&=(const IntervalSet & other);
    IntervalSet operator+(const IntervalSet & other) const;
    IntervalSet operator-(const IntervalSet & other) const;
    IntervalSet operator&(const IntervalSet & other) const;
    //! The index-th smallest element (0-based); throws std::out_of_range.
    int operator[](int index) const;

private:
    std::vector<ClosedInterval> _intervals; // sorted, disjoint, non-adjacent
};
