# Warnings for the project's own C++ targets.
function(poreflow_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wno-unused-parameter>)
endfunction()

# Sanitizers for debugging: -DPOREFLOW_SANITIZE=address,undefined
set(POREFLOW_SANITIZE "" CACHE STRING "Comma-separated -fsanitize= list for the C++ code")
if(POREFLOW_SANITIZE)
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-fsanitize=${POREFLOW_SANITIZE}> $<$<COMPILE_LANGUAGE:CXX>:-fno-omit-frame-pointer>)
  add_link_options(-fsanitize=${POREFLOW_SANITIZE})
endif()
