# CPU tests of the SPTC family's host planning (label `cpu`): the multi-granularity reorder to 2:4
# (every tile 2:4, exact product through the reordered layout, retries, bank-conflict preference,
# zero-column skipping, every V and BLOCK_TILE, tails, bad structure, analyze time), and the
# device storage read back through a CPU emulation of mma.sp m16n8k32, and every decision of the
# family (plan/choice: switches, the rules, the decision and its plan-info text, the per-call
# launch). The planning sources are compiled in directly (libspx hides its internals).
set(SPX_SPTC_PLANNING ${PROJECT_SOURCE_DIR}/src/families/sptc/plan/reorder.cpp
                      ${PROJECT_SOURCE_DIR}/src/families/sptc/plan/group_unit.cpp
                      ${PROJECT_SOURCE_DIR}/src/families/sptc/plan/cluster.cpp
                      ${PROJECT_SOURCE_DIR}/src/families/sptc/plan/storage.cpp
                      ${PROJECT_SOURCE_DIR}/src/families/sptc/plan/choice.cpp)
foreach(t IN ITEMS test_sptc_reorder test_sptc_storage test_sptc_choice)
  add_executable(${t} ${CMAKE_CURRENT_LIST_DIR}/${t}.cpp ${SPX_SPTC_PLANNING})
  target_link_libraries(${t} PRIVATE spx_catch_main_cpu spx_host Catch2::Catch2)
  target_compile_options(${t} PRIVATE $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra>)
  catch_discover_tests(${t} TEST_PREFIX "${t}: " PROPERTIES LABELS cpu)
endforeach()
