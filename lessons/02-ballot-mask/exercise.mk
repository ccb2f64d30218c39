# exercise.mk - lesson 02's exercise, declared once. mk/lesson.mk (make check
# SRC=), scripts/grade.sh (make grade), make classroom and make gradescope read it.
#   EXERCISE_STARTER  the lesson file a student copies to mine.cu
#   EXERCISE_PARTS    what is graded: each part a demonstration (a DEMO=
#                     name of check.sh) and its points, NAME:POINTS; the
#                     points add up to 10, full marks
EXERCISE_STARTER := legacy.cu
# Not graded: exited (legacy.cu's full mask naming exited lanes passes every
# check, on warpsim and GPUs alike: the checker cannot tell it from a fix)
# and detective (the same right code in both files).
EXERCISE_PARTS := activemask:3 partners:3 reconverge:2 hang:2
