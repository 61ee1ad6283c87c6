# CPU tests of the ELL family's host planning (label `cpu`): HYB width rule, layout, 16-bit
# indices, value slot map, near-uniform rule, and the kernel configuration rule. The planning
# source is compiled in directly (it lives in libspx, whose internals are hidden).
add_executable(test_ell_layout ${CMAKE_CURRENT_LIST_DIR}/test_ell_layout.cpp
                               ${PROJECT_SOURCE_DIR}/src/families/ell/plan/layout.cpp)
target_link_libraries(test_ell_layout PRIVATE spx_catch_main_cpu spx_host Catch2::Catch2)
target_compile_options(test_ell_layout PRIVATE $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra>)
catch_discover_tests(test_ell_layout TEST_PREFIX "test_ell_layout: " PROPERTIES LABELS cpu)
