# Eclipse decks through opm-common (Debian libopm-common-dev), optional at build time.
# POREFLOW_WITH_OPM: AUTO (use it when found), ON (required), OFF. Sets POREFLOW_HAVE_OPM and, when
# found, the imported target poreflow_opm (the library, its headers, what its headers need).
set(POREFLOW_WITH_OPM AUTO CACHE STRING "Eclipse deck input through opm-common: AUTO, ON or OFF")
set(POREFLOW_HAVE_OPM OFF)
if(NOT POREFLOW_WITH_OPM STREQUAL "OFF")
  # the library and its headers directly: its CMake package pulls Python and Boost configurations
  # that a run-time-only machine (the GPU one, fed from Debian packages) does not need
  find_library(OPMCOMMON_LIBRARY NAMES opmcommon)
  find_path(OPMCOMMON_INCLUDE_DIR opm/input/eclipse/Parser/Parser.hpp)
  find_package(fmt QUIET)
  if(OPMCOMMON_LIBRARY AND OPMCOMMON_INCLUDE_DIR AND TARGET fmt::fmt)
    add_library(poreflow_opm INTERFACE IMPORTED)
    target_include_directories(poreflow_opm INTERFACE ${OPMCOMMON_INCLUDE_DIR})
    target_link_libraries(poreflow_opm INTERFACE ${OPMCOMMON_LIBRARY} fmt::fmt)
    set(POREFLOW_HAVE_OPM ON)
    message(STATUS "poreflow: Eclipse decks through ${OPMCOMMON_LIBRARY}")
  elseif(POREFLOW_WITH_OPM STREQUAL "ON")
    message(FATAL_ERROR "POREFLOW_WITH_OPM=ON but opm-common was not found (Debian: libopm-common-dev)")
  else()
    message(STATUS "poreflow: opm-common not found, built without Eclipse deck support")
  endif()
endif()
