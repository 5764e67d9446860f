#include "core/io/eclipse/opm_checks.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>

#include <opm/input/eclipse/Deck/Deck.hpp>
#include <opm/input/eclipse/Deck/DeckItem.hpp>
#include <opm/input/eclipse/Deck/DeckKeyword.hpp>
#include <opm/input/eclipse/Deck/DeckRecord.hpp>
#include <opm/input/eclipse/Units/UnitSystem.hpp>

#include "core/base/error.hpp"

namespace poreflow::eclipse {

namespace {

std::string num(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", x);
  return b;
}

[[noreturn]] void bad(const Opm::DeckKeyword& kw, const std::string& what) { throw ConfigError(keyword_place(kw) + ": " + what); }

// the deck's units of the quantities the messages print
struct Units {
  std::string pressure = "bar", time = "days";
};
Units units_of(const Opm::Deck& deck) {
  using T = Opm::UnitSystem::UnitType;
  switch (deck.getActiveUnitSystem().getType()) {
    case T::UNIT_TYPE_FIELD: return {"psia", "days"};
    case T::UNIT_TYPE_LAB: return {"atm", "hours"};
    case T::UNIT_TYPE_PVT_M: return {"atm", "days"};
    default: return {};
  }
}

// DIMENS, SPECGRID: NX, NY, NZ >= 1, and a count of cells opm-common holds (it counts in 32 bits:
// past that, its message is "DX size mismatch")
void check_dimensions(const Opm::Deck& deck) {
  for (const char* name : {"DIMENS", "SPECGRID"}) {
    for (const auto& kw : deck[name]) {
      const auto& rec = kw.getRecord(0);
      std::array<long, 3> n{};
      for (std::size_t a = 0; a < 3; ++a) {
        const auto& item = rec.getItem(a);
        n[a] = item.get<int>(0);
        if (n[a] < 1) bad(kw, item.name() + " = " + std::to_string(n[a]) + " must be an integer >= 1 (cells along " + "XYZ"[a] + ")");
      }
      const double cells = double(n[0]) * double(n[1]) * double(n[2]);
      if (cells > double(INT32_MAX))
        bad(kw, std::to_string(n[0]) + " x " + std::to_string(n[1]) + " x " + std::to_string(n[2]) + " = " + num(cells) +
                    " cells: more than opm-common reads from a deck (2^31 - 1 = 2147483647 cells)");
    }
  }
}

int days_in(int month, int year) {
  static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : days[month - 1];
}

// START, DATES: a day of a month of a year (opm-common says "Invalid input arguments for date" or
// "unordered_map::at")
void check_dates(const Opm::Deck& deck) {
  static const char* kMonths[12] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
  for (const char* name : {"START", "DATES"}) {
    for (const auto& kw : deck[name]) {
      for (std::size_t r = 0; r < kw.size(); ++r) {
        const auto& rec = kw.getRecord(r);
        const int day = rec.getItem("DAY").get<int>(0), year = rec.getItem("YEAR").get<int>(0);
        const std::string month = rec.getItem("MONTH").getTrimmedString(0);
        const std::string date = std::to_string(day) + " " + month + " " + std::to_string(year);
        const std::string rec_name = kw.size() > 1 ? " (record " + std::to_string(r + 1) + ")" : "";
        int m = 0;
        for (int k = 0; k < 12; ++k)
          if (month == kMonths[k]) m = k + 1;
        if (month == "JLY") m = 7;
        if (m == 0) bad(kw, date + rec_name + " is not a date: " + month + " is not a month (JAN, FEB, ..., DEC)");
        if (day < 1 || day > days_in(m, year))
          bad(kw, date + rec_name + " is not a date: " + month + " " + std::to_string(year) + " has days 1 to " +
                      std::to_string(days_in(m, year)));
      }
    }
  }
}

// TSTEP: every step > 0, in the deck's time unit (opm-common says it in seconds)
void check_steps(const Opm::Deck& deck, const Units& u) {
  for (const auto& kw : deck["TSTEP"]) {
    const auto& item = kw.getRecord(0).getItem(0);
    for (std::size_t i = 0; i < item.data_size(); ++i) {
      const double x = item.get<double>(i);
      if (!(x >= 0) || !std::isfinite(x))
        bad(kw, "step " + std::to_string(i + 1) + " = " + num(x) + " " + u.time + " must be a finite number >= 0");
    }
  }
}

// a table keyword's rows: `width` values each; `check(row, previous row)` returns what is wrong
using RowCheck = std::function<std::string(const double* row, const double* prev)>;
void check_table(const Opm::Deck& deck, const char* name, std::size_t width, const char* columns, const RowCheck& check) {
  for (const auto& kw : deck[name]) {
    for (std::size_t t = 0; t < kw.size(); ++t) {
      const auto& item = kw.getRecord(t).getItem(0);
      const std::string table = kw.size() > 1 ? "table " + std::to_string(t + 1) + " " : "";
      const std::size_t n = item.data_size();
      if (n % width != 0)
        bad(kw, table + "has " + std::to_string(n) + " values, not rows of " + std::to_string(width) + " (" + columns + ")");
      std::vector<double> v(n, NAN);  // a defaulted value (1*) is NaN: no check compares it
      for (std::size_t i = 0; i < n; ++i)
        if (!item.defaultApplied(i)) v[i] = item.get<double>(i);
      for (std::size_t r = 1; r < n / width; ++r) {
        const std::string what = check(&v[r * width], &v[(r - 1) * width]);
        if (!what.empty()) bad(kw, table + "row " + std::to_string(r + 1) + ": " + what);
      }
    }
  }
}

}  // namespace

std::string keyword_place(const Opm::DeckKeyword& kw) {
  const auto& loc = kw.location();
  return kw.name() + " (" + loc.filename + ":" + std::to_string(loc.lineno) + ")";
}

void check_deck_values(const Opm::Deck& deck) {
  const Units u = units_of(deck);
  check_dimensions(deck);
  check_dates(deck);
  check_steps(deck, u);
  // the orderings opm-common requires of the tables impes3d reads (its own checks follow, in
  // validate(): the ranges and monotony of the rest)
  check_table(deck, "SWOF", 4, "S_w, k_rw, k_row, p_cow", [](const double* row, const double* prev) -> std::string {
    if (row[0] <= prev[0]) return "S_w = " + num(row[0]) + " after " + num(prev[0]) + ": the S_w column must increase";
    return {};
  });
  check_table(deck, "PVDO", 3, "p, B_o, mu_o", [&u](const double* row, const double* prev) -> std::string {
    if (row[0] <= prev[0])
      return "p = " + num(row[0]) + " " + u.pressure + " after " + num(prev[0]) + " " + u.pressure + ": the pressure column must increase";
    if (row[1] >= prev[1])
      return "B_o = " + num(row[1]) + " after " + num(prev[1]) + ": B_o must fall as the pressure rises (opm-common's rule for PVDO)";
    if (row[2] < prev[2])
      return "mu_o = " + num(row[2]) + " cP after " + num(prev[2]) +
             " cP: the viscosity must not fall as the pressure rises (opm-common's rule for PVDO)";
    return {};
  });
}

std::string with_keyword_place(const std::string& what, const Opm::Deck& deck) {
  // impes3d's messages start with the table's name, or say what they are about
  static const std::pair<const char*, const char*> kStarts[] = {
      {"SWOF", "SWOF"}, {"PVDO", "PVDO"}, {"PVTW", "PVTW"}, {"ROCK", "ROCK"},
      {"the surface densities", "DENSITY"}, {"initial: the datum", "EQUIL"},
  };
  for (const auto& [start, name] : kStarts) {
    const std::string s = start;
    if (what.compare(0, s.size(), s) != 0 || !deck.hasKeyword(name)) continue;
    const auto view = deck[name];
    // "SWOF: x" -> "x", "SWOF row 2: x" -> "row 2: x"; other messages whole
    std::string rest = what;
    if (what.compare(s.size(), 2, ": ") == 0) rest = what.substr(s.size() + 2);
    else if (what.compare(s.size(), 5, " row ") == 0) rest = what.substr(s.size() + 1);
    return keyword_place(view[view.size() - 1]) + ": " + rest;
  }
  return what;
}

}  // namespace poreflow::eclipse
