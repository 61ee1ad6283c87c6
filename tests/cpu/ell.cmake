# CPU tests of the ELL family's host planning (label `cpu`): HYB width rule, layout, 16-bit
# indices, value slot map, near-uniform rule; and the decision (test_ell_choice). The planning
# sources are compiled in directly (they live in libspx, whose internals are hidden).
add_executable(test_ell_layout ${CMAKE_CURRENT_LIST_DIR}/test_ell_layout.cpp
                               ${PROJECT_SOURCE_DIR}/src/families/ell/plan/layout.cpp)
target_link_libraries(test_ell_layout PRIVATE spx_catch_main_cpu spx_host Catch2::Catch2)
target_compile_options(test_ell_layout PRIVATE $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra>)
catch_discover_tests(test_ell_layout TEST_PREFIX "test_ell_layout: " PROPERTIES LABELS cpu)

# The decision (plan/choice.cpp: the rule, candidates, overrides, describe) and the per-call
# launch choices (plan/call.cpp), compiled in directly like the layout.
add_executable(test_ell_choice ${CMAKE_CURRENT_LIST_DIR}/test_ell_choice.cpp
                               ${PROJECT_SOURCE_DIR}/src/families/ell/plan/choice.cpp
                               ${PROJECT_SOURCE_DIR}/src/families/ell/plan/call.cpp)
target_link_libraries(test_ell_choice PRIVATE spx_catch_main_cpu spx_host Catch2::Catch2)
target_compile_options(test_ell_choice PRIVATE $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra>)
catch_discover_tests(test_ell_choice TEST_PREFIX "test_ell_choice: " PROPERTIES LABELS cpu)
