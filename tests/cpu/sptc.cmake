# CPU tests of the SPTC family's host planning (label `cpu`): the multi-granularity reorder to 2:4
# (every tile 2:4, exact product through the reordered layout, retries, bank-conflict preference,
# zero-column skipping, every V and BLOCK_TILE, tails, bad structure, analyze time). The planning
# sources are compiled in directly (libspx hides its internals).
add_executable(test_sptc_reorder ${CMAKE_CURRENT_LIST_DIR}/test_sptc_reorder.cpp
                                 ${PROJECT_SOURCE_DIR}/src/planning/sptc_reorder.cpp
                                 ${PROJECT_SOURCE_DIR}/src/planning/sptc_group_unit.cpp)
target_link_libraries(test_sptc_reorder PRIVATE spx_catch_main_cpu spx_host Catch2::Catch2)
target_compile_options(test_sptc_reorder PRIVATE $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra>)
catch_discover_tests(test_sptc_reorder TEST_PREFIX "test_sptc_reorder: " PROPERTIES LABELS cpu)
