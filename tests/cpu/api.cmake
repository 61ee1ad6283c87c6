# C API without a GPU (label `cpu`): status names, version, the thread-local error message,
# spxCreate's answer by the devices present, descriptors of every format over fake device
# pointers, and the argument checks that need no handle. Also run on the GPU machine.
add_executable(test_api_cpu ${CMAKE_CURRENT_LIST_DIR}/test_api_cpu.cpp)
target_include_directories(test_api_cpu PRIVATE ${PROJECT_SOURCE_DIR}/tests/common)
# cudart only to ask how many devices there are (to know what spxCreate must answer).
target_link_libraries(test_api_cpu PRIVATE spx Catch2::Catch2 CUDA::cudart)
target_compile_features(test_api_cpu PRIVATE cxx_std_17)
# Catch2's main: the CPU suites' shared object (host.cmake) when there is one, else our own.
if(TARGET spx_catch_main_cpu)
  target_link_libraries(test_api_cpu PRIVATE spx_catch_main_cpu)
else()
  target_compile_definitions(test_api_cpu PRIVATE CATCH_CONFIG_MAIN)
endif()
target_compile_options(test_api_cpu PRIVATE $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra>)
catch_discover_tests(test_api_cpu TEST_PREFIX "test_api_cpu: " PROPERTIES LABELS cpu)
