# exercise.mk - lesson 05's exercise, declared once. mk/lesson.mk (make check
# SRC=), scripts/grade.sh (make grade), make classroom and make gradescope read it.
#   EXERCISE_STARTER  the lesson file a student copies to mine.cu
#   EXERCISE_PARTS    what is graded: each part a demonstration (a DEMO=
#                     name of check.sh) and its points, NAME:POINTS; the
#                     points add up to 10, full marks
EXERCISE_STARTER := legacy.cu
# Not graded: queues and plain, the same right code in both files.
EXERCISE_PARTS := broadcast:5 group:5
