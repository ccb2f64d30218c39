/* cuda_fp16.h - nothing: include/lesson.h reads it before its macros; the
 * half-precision types are not part of the lessons (scripts/device-only.py). */
