/**
 * @file spx_export.h
 * @brief Symbol visibility for libspx. The library is built with hidden visibility; only
 * symbols marked SPX_API are exported. SPX_BUILDING_LIBRARY is defined by the build only.
 */
#ifndef SPX_EXPORT_H
#define SPX_EXPORT_H

#if defined(_WIN32)
#if defined(SPX_BUILDING_LIBRARY)
#define SPX_API __declspec(dllexport)
#else
#define SPX_API __declspec(dllimport)
#endif
#else
#define SPX_API __attribute__((visibility("default")))
#endif

#if defined(__GNUC__) || defined(__clang__)
#define SPX_DEPRECATED(msg) __attribute__((deprecated(msg)))
#else
#define SPX_DEPRECATED(msg)
#endif

#endif /* SPX_EXPORT_H */
