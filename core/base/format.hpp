#pragma once
// Numbers for people: counts and durations that print without absurd digits, whatever the input
// (a time-left estimate of 1e300 s, a step count of 1e311).
#include <string>

namespace poreflow {

// a number as %g prints it: 0.001, 1e+308
std::string num_text(double v);

// a count: exact up to 10^15 ("10000000"), else in powers of ten ("1.2e+300"); an infinite count
// (a quotient that overflowed) is "more than 1e+308", NaN "unknown"
std::string count_text(double n);

// a duration: "0.4 s", "42 s", "3 min 12 s", "2 h 5 min", "3 d 4 h", "12 years", "more than a
// million years" (infinity too); "unknown" when negative or NaN
std::string duration_text(double seconds);

}  // namespace poreflow
