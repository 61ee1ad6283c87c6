# CPU tests of the host layer: element types, the CPU reference, planning conversions (linked
# statically through spx_reference -> spx_host) and the exported spxHost* C functions (linked
# against the shared library, since those are its public symbols). Test names are prefixed
# with the executable so they cannot collide with other suites in ctest.

# Catch2's main, compiled once for all the executables below.
add_library(spx_catch_main_cpu OBJECT ${CMAKE_CURRENT_LIST_DIR}/catch_main.cpp)
target_link_libraries(spx_catch_main_cpu PUBLIC Catch2::Catch2)

foreach(name IN ITEMS test_dtype test_env test_reference test_planning)
  add_executable(${name} ${CMAKE_CURRENT_LIST_DIR}/${name}.cpp)
  target_link_libraries(${name} PRIVATE spx_catch_main_cpu spx_reference Catch2::Catch2)
  target_compile_options(${name} PRIVATE $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra>)
  catch_discover_tests(${name} TEST_PREFIX "${name}: " PROPERTIES LABELS cpu)
endforeach()

add_executable(test_host_tools ${CMAKE_CURRENT_LIST_DIR}/test_host_tools.cpp)
target_link_libraries(test_host_tools PRIVATE spx_catch_main_cpu spx Catch2::Catch2)
target_compile_options(test_host_tools PRIVATE $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra>)
catch_discover_tests(test_host_tools TEST_PREFIX "test_host_tools: " PROPERTIES LABELS cpu)

# The fallback family's host plan (compiled in directly: libspx hides its internals).
add_executable(test_fallback_plan ${CMAKE_CURRENT_LIST_DIR}/test_fallback_plan.cpp
                                  ${PROJECT_SOURCE_DIR}/src/families/fallback/plan/entry_rows.cpp)
target_link_libraries(test_fallback_plan PRIVATE spx_catch_main_cpu spx_host Catch2::Catch2)
target_compile_options(test_fallback_plan PRIVATE $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra>)
catch_discover_tests(test_fallback_plan TEST_PREFIX "test_fallback_plan: " PROPERTIES LABELS cpu)
