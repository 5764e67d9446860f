# Unity builds of the targets with many translation units over the same heavy headers (the tests,
# the command line): each batch compiles the headers' inline code once instead of once a file.
# About half the build time of those targets on the 2-core CI machine (docs/reliability.md, "Time").
# Files of one batch share their anonymous namespaces: two may not define the same name there.
# OFF for a quicker rebuild of one changed file, or to check a file compiles on its own.
option(POREFLOW_UNITY_BUILD "Compile the tests and the command line in batches (unity builds)" ON)

function(poreflow_unity target batch)
  if(POREFLOW_UNITY_BUILD)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${batch})
    # A batch includes its files, so a lambda of one that captures a type from its anonymous
    # namespace looks to GCC like a header's type used with internal linkage: no such problem in
    # a unity build, where each file still has one definition.
    target_compile_options(${target} PRIVATE $<$<CXX_COMPILER_ID:GNU>:-Wno-subobject-linkage>)
  endif()
endfunction()
