// simlib's STAND-IN for the intervalset library; see intervalset.hpp.
#include "intervalset.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

IntervalSet::element_const_iterator::element_const_iterator(const_intervals_iterator it,
                                                            const_intervals_iterator end)
    : _it(it), _end(end), _value(it == end ? 0 : it->first)
{
}

IntervalSet::element_const_iterator & IntervalSet::element_const_iterator::operator++()
{
    if (_value < _it->second)
        ++_value;
    else
    {
        ++_it;
        _value = (_it == _end) ? 0 : _it->first;
    }
    return *this;
}

IntervalSet::element_const_iterator IntervalSet::element_const_iterator::operator++(int)
{
    element_const_iterator before = *this;
    ++*this;
    return before;
}

bool IntervalSet::element_const_iterator::operator==(const element_const_iterator & other) const
{
    return _it == other._it && _value == other._value;
}

IntervalSet::IntervalSet(int element) { insert(element); }

IntervalSet::IntervalSet(const ClosedInterval & interval) { insert(interval); }

IntervalSet & IntervalSet::operator=(const ClosedInterval & interval)
{
    clear();
    insert(interval);
    return *this;
}

static int parse_int(const std::string & text, const std::string & whole)
{
    if (text.empty())
        throw std::invalid_argument("empty number in interval set '" + whole + "'");
    size_t used = 0;
    int value;
    try { value = std::stoi(text, &used); }
    catch (const std::exception &)
    {
        throw std::invalid_argument("bad number '" + text + "' in interval set '" + whole + "'");
    }
    if (used != text.size())
        throw std::invalid_argument("bad number '" + text + "' in interval set '" + whole + "'");
    return value;
}

IntervalSet IntervalSet::from_string_hyphen(const std::string & str, const std::string & sep,
                                            const std::string & joiner)
{
    if (sep.empty() || joiner.empty())
        throw std::invalid_argument("from_string_hyphen: empty separator or joiner");
    IntervalSet result;
    if (str.empty())
        return result;
    size_t start = 0;
    while (true)
    {
        size_t stop = str.find(sep, start);
        std::string part = str.substr(start, stop == std::string::npos ? std::string::npos : stop - start);
        // A joiner is searched after the first character so "-3" can be a number.
        size_t j = part.empty() ? std::string::npos : part.find(joiner, 1);
        if (j == std::string::npos)
            result.insert(parse_int(part, str));
        else
        {
            int a = parse_int(part.substr(0, j), str);
            int b = parse_int(part.substr(j + joiner.size()), str);
            if (a > b)
                throw std::invalid_argument("interval '" + part + "' has its bounds reversed in '" + str + "'");
            result.insert(ClosedInterval(a, b));
        }
        if (stop == std::string::npos)
            break;
        start = stop + sep.size();
    }
    return result;
}

void IntervalSet::insert(int element) { insert(ClosedInterval(element, element)); }

void IntervalSet::insert(const ClosedInterval & interval)
{
    if (interval.first > interval.second)
        throw std::invalid_argument("insert: interval with first > second");
    long long lo = interval.first, hi = interval.second;
    std::vector<ClosedInterval> out;
    out.reserve(_intervals.size() + 1);
    bool placed = false;
    for (const ClosedInterval & iv : _intervals)
    {
        if (static_cast<long long>(iv.second) + 1 < lo)
            out.push_back(iv);                  // entirely before, not adjacent
        else if (hi + 1 < iv.first)
        {
            if (!placed)
            {
                out.emplace_back(static_cast<int>(lo), static_cast<int>(hi));
                placed = true;
            }
            out.push_back(iv);                  // entirely after, not adjacent
        }
        else
        {
            lo = std::min<long long>(lo, iv.first); // overlapping or adjacent: merge
            hi = std::max<long long>(hi, iv.second);
        }
    }
    if (!placed)
        out.emplace_back(static_cast<int>(lo), static_cast<int>(hi));
    _intervals.swap(out);
}

void IntervalSet::insert(const IntervalSet & other)
{
    for (const ClosedInterval & iv : other._intervals)
        insert(iv);
}

void IntervalSet::remove(int element) { remove(ClosedInterval(element, element)); }

void IntervalSet::remove(const ClosedInterval & interval)
{
    if (interval.first > interval.second)
        throw std::invalid_argument("remove: interval with first > second");
    std::vector<ClosedInterval> out;
    out.reserve(_intervals.size() + 1);
    for (const ClosedInterval & iv : _intervals)
    {
        if (iv.second < interval.first || iv.first > interval.second)
        {
            out.push_back(iv);
            continue;
        }
        if (iv.first < interval.first)
            out.emplace_back(iv.first, interval.first - 1);
        if (iv.second > interval.second)
            out.emplace_back(interval.second + 1, iv.second);
    }
    _intervals.swap(out);
}

void IntervalSet::remove(const IntervalSet & other)
{
    for (const ClosedInterval & iv : other._intervals)
        remove(iv);
}

IntervalSet IntervalSet::left(int nb_elements) const
{
    if (nb_elements < 0 || static_cast<unsigned int>(nb_elements) > size())
        throw std::out_of_range("left: the set has fewer elements than asked");
    IntervalSet result;
    long long wanted = nb_elements;
    for (const ClosedInterval & iv : _intervals)
    {
        if (wanted == 0)
            break;
        long long length = static_cast<long long>(iv.second) - iv.first + 1;
        long long take = std::min(wanted, length);
        result._intervals.emplace_back(iv.first, static_cast<int>(iv.first + take - 1));
        wanted -= take;
    }
    return result;
}

int IntervalSet::first_element() const
{
    if (_intervals.empty())
        throw std::out_of_range("first_element: empty interval set");
    return _intervals.front().first;
}

unsigned int IntervalSet::size() const
{
    unsigned long long total = 0;
    for (const ClosedInterval & iv : _intervals)
        total += static_cast<unsigned long long>(static_cast<long long>(iv.second) - iv.first + 1);
    return static_cast<unsigned int>(total);
}

bool IntervalSet::contains(int element) const
{
    return contains(ClosedInterval(element, element));
}

bool IntervalSet::contains(const ClosedInterval & interval) const
{
    for (const ClosedInterval & iv : _intervals)
        if (iv.first <= interval.first && interval.second <= iv.second)
            return true;
    return false;
}

bool IntervalSet::is_subset_of(const IntervalSet & other) const
{
    for (const ClosedInterval & iv : _intervals)
        if (!other.contains(iv))
            return false;
    return true;
}

IntervalSet::element_const_iterator IntervalSet::elements_begin() const
{
    return element_const_iterator(_intervals.begin(), _intervals.end());
}

IntervalSet::element_const_iterator IntervalSet::elements_end() const
{
    return element_const_iterator(_intervals.end(), _intervals.end());
}

std::string IntervalSet::to_string_brackets(const std::string & union_str,
                                            const std::string & opening_bracket,
                                            const std::string & closing_bracket,
                                            const std::string & sep) const
{
    std::string out;
    for (size_t i = 0; i < _intervals.size(); ++i)
    {
        if (i > 0)
            out += union_str;
        out += opening_bracket + std::to_string(_intervals[i].first);
        if (_intervals[i].second != _intervals[i].first)
            out += sep + std::to_string(_intervals[i].second);
        out += closing_bracket;
    }
    return out;
}

std::string IntervalSet::to_string_hyphen(const std::string & sep, const std::string & joiner) const
{
    std::string out;
    for (size_t i = 0; i < _intervals.size(); ++i)
    {
        if (i > 0)
            out += sep;
        out += std::to_string(_intervals[i].first);
        if (_intervals[i].second != _intervals[i].first)
            out += joiner + std::to_string(_intervals[i].second);
    }
    return out;
}

std::string IntervalSet::to_string_elements(const std::string & sep) const
{
    std::string out;
    for (auto it = elements_begin(); it != elements_end(); ++it)
    {
        if (!out.empty())
            out += sep;
        out += std::to_string(*it);
    }
    return out;
}

IntervalSet & IntervalSet::operator+=(const IntervalSet & other)
{
    insert(other);
    return *this;
}

IntervalSet & IntervalSet::operator-=(const IntervalSet & other)
{
    remove(other);
    return *this;
}

IntervalSet & IntervalSet::operator&=(const IntervalSet & other)
{
    std::vector<ClosedInterval> out;
    size_t i = 0, j = 0;
    while (i < _intervals.size() && j < other._intervals.size())
    {
        int lo = std::max(_intervals[i].first, other._intervals[j].first);
        int hi = std::min(_intervals[i].second, other._intervals[j].second);
        if (lo <= hi)
            out.emplace_back(lo, hi);
        if (_intervals[i].second < other._intervals[j].second)
            ++i;
        else
            ++j;
    }
    _intervals.swap(out);
    return *this;
}

IntervalSet IntervalSet::operator+(const IntervalSet & other) const
{
    IntervalSet result(*this);
    return result += other;
}

IntervalSet IntervalSet::operator-(const IntervalSet & other) const
{
    IntervalSet result(*this);
    return result -= other;
}

IntervalSet IntervalSet::operator&(const IntervalSet & other) const
{
    IntervalSet result(*this);
    return result &= other;
}

int IntervalSet::operator[](int index) const
{
    if (index < 0)
        throw std::out_of_range("operator[]: negative index");
    long long remaining = index;
    for (const ClosedInterval & iv : _intervals)
    {
        long long length = static_cast<long long>(iv.second) - iv.first + 1;
        if (remaining < length)
            return static_cast<int>(iv.first + remaining);
        remaining -= length;
    }
    throw std::out_of_range("operator[]: index beyond the set's size");
}
