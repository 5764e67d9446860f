// What a bad deck is told: one line naming the keyword, its file and line, with the values in the
// deck's own units, where opm-common alone says "argument not found", "DX size mismatch",
// "Incorrect ordering of values in column: SW" or a TSTEP in seconds.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/base/error.hpp"
#include "core/io/eclipse/deck.hpp"
#include "tests/harness.hpp"

using namespace poreflow;

#if POREFLOW_HAVE_OPM

namespace {

const std::string kSmall = std::string(POREFLOW_SOURCE_DIR) + "/tests/decks/SMALL.DATA";

std::filesystem::path scratch() {
  const auto dir = std::filesystem::temp_directory_path() / "poreflow_deck_messages";
  std::filesystem::create_directories(dir);
  return dir;
}

// SMALL.DATA with `from` replaced by `to` (each must occur), written as NAME.DATA
std::string edited(const std::string& name, const std::vector<std::pair<std::string, std::string>>& edits) {
  std::ifstream in(kSmall);
  std::string text(std::istreambuf_iterator<char>(in), {});
  for (const auto& e : edits) {
    const auto at = text.find(e.first);
    REQUIRE_MESSAGE(at != std::string::npos, e.first);
    text.replace(at, e.first.size(), e.second);
  }
  const auto path = (scratch() / (name + ".DATA")).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string written(const std::string& name, const std::string& bytes) {
  const auto path = (scratch() / name).string();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string read_refusal(const std::string& path) {
  try {
    (void)eclipse::read_deck(path);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

// the message names every one of `words`, holds none of `never`, and is one line of text
void refused(const std::string& path, const std::vector<std::string>& words, const std::vector<std::string>& never = {}) {
  const std::string msg = read_refusal(path);
  CAPTURE(msg);
  for (const auto& w : words) CHECK_MESSAGE(msg.find(w) != std::string::npos, "expected '" << w << "'");
  for (const auto& w : never) CHECK_MESSAGE(msg.find(w) == std::string::npos, "unexpected '" << w << "'");
  CHECK(msg.find('\n') == std::string::npos);
  std::size_t unprintable = 0;
  for (char ch : msg) unprintable += ch < 0x20 || ch >= 0x7f;
  CHECK_MESSAGE(unprintable == 0, "bytes that are not printable ASCII");
}

}  // namespace

TEST_CASE("deck messages: a file that is not text is refused naming its line, not with opm-common's words") {
  std::string garbage = "RUNSPEC\n";
  for (int i = 0; i < 600; ++i) garbage += static_cast<char>((i * 151 + 7) % 256);
  refused(written("GARBAGE.DATA", garbage), {"GARBAGE.DATA", "line 2", "not text"}, {"argument not found", "format string"});
  // braces, which opm-common takes for its own message's placeholders
  refused(written("BRACES.DATA", "RUNSPEC\nDIMENS\n 1 1 1 /\n{}{\n"), {"BRACES.DATA", "line 4", "'{'"},
          {"argument not found", "format string"});
  // after a record's slash and in comments, anything goes (opm-common skips it): such a deck reads
  CHECK(read_refusal(edited("COMMENTS", {{"TITLE\n", "-- ünïcode {} in a comment\nTITLE\n"}, {" 300*0.2 /", " 300*0.2 / {porosity}"}})) ==
        "(no error)");
}

TEST_CASE("deck messages: DIMENS, TSTEP and DATES are checked with their place and the deck's units") {
  refused(edited("DIM0", {{" 10 10 3 /", " 0 10 3 /"}}), {"DIMENS", "DIM0.DATA:6", "NX = 0"}, {"size mismatch"});
  refused(edited("DIMNEG", {{" 10 10 3 /", " 10 10 -3 /"}}), {"DIMENS", "DIMNEG.DATA:6", "NZ = -3"}, {"_M_default_append"});
  refused(edited("DIMHUGE", {{" 10 10 3 /", " 100000 100000 1000 /"}}), {"DIMENS", "DIMHUGE.DATA:6", "cells"}, {"size mismatch"});
  refused(edited("TSTEPNEG", {{" 5*30 /\nWCONPROD", " 5*30 -10 /\nWCONPROD"}}), {"TSTEP", "TSTEPNEG.DATA:103", "-10 days"},
          {"864000", "Problem with keyword"});
  refused(edited("MONTH", {{"TSTEP\n 5*30 /\nWCONPROD", "DATES\n 1 XYZ 2020 /\n/\nTSTEP\n 5*30 /\nWCONPROD"}}),
          {"DATES", "MONTH.DATA:103", "XYZ"}, {"unordered_map"});
  refused(edited("DAY", {{" 1 JAN 2020 /", " 41 JAN 2020 /"}}), {"START", "DAY.DATA:15", "41 JAN 2020"}, {"Invalid input arguments"});
  // opm-common's own located message becomes one line
  refused(edited("BACK", {{"TSTEP\n 5*30 /\nWCONPROD", "DATES\n 1 JAN 2019 /\n/\nTSTEP\n 5*30 /\nWCONPROD"}}),
          {"DATES", "BACK.DATA:103", "earlier"});
}

TEST_CASE("deck messages: tables out of order name the keyword, its place, the row and the deck's units") {
  refused(edited("SWOFSW", {{" 0.40  0.040  0.360  0.08", " 0.25  0.040  0.360  0.08"}}), {"SWOF", "SWOFSW.DATA:41", "row 3", "0.25"},
          {"Incorrect ordering"});
  refused(edited("PVDOP", {{" 300  1.16  2.2", " 150  1.16  2.2"}}), {"PVDO", "PVDOP.DATA:53", "row 3", "150 bar"},
          {"Incorrect ordering"});
  refused(edited("PVDOBO", {{" 150  1.18  2.0", " 150  1.21  2.0"}}), {"PVDO", "PVDOBO.DATA:53", "row 2", "B_o"},
          {"Incorrect ordering"});
  refused(edited("PVDOMU", {{" 150  1.18  2.0", " 150  1.18  1.7"}}), {"PVDO", "PVDOMU.DATA:53", "row 2", "1.7 cP"},
          {"Incorrect ordering"});
  // FIELD units: the pressure in psia
  refused(edited("FIELDP", {{"METRIC\n", "FIELD\n"}, {" 300  1.16  2.2", " 150  1.16  2.2"}}), {"PVDO", "row 3", "150 psia"});
  // impes3d's own table checks name the keyword's place too
  refused(edited("SWOFKRW", {{" 0.40  0.040  0.360  0.08", " 0.40  0.005  0.360  0.08"}}), {"SWOF", "SWOFKRW.DATA:41", "k_rw"});
  refused(edited("PVTWMU", {{" 200 1.01 4.5E-5 0.5 0 /", " 200 1.01 4.5E-5 -0.5 0 /"}}), {"PVTW", "PVTWMU.DATA:51"});
  refused(edited("DENS", {{" 850 1000 1 /", " -850 1000 1 /"}}), {"DENSITY", "DENS.DATA:58"});
  refused(edited("EQUILP", {{" 2000 200 2020 0 /", " 2000 -200 2020 0 /"}}), {"EQUIL", "EQUILP.DATA:64"});
}

#endif
