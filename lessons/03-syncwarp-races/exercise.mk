# exercise.mk - lesson 03's exercise, declared once. mk/lesson.mk (make check
# SRC=), scripts/grade.sh (make grade), make classroom and make gradescope read it.
#   EXERCISE_STARTER  the lesson file a student copies to mine.cu
#   EXERCISE_PARTS    what is graded: each part a demonstration (a DEMO=
#                     name of check.sh) and its points, NAME:POINTS; the
#                     points add up to 10, full marks
EXERCISE_STARTER := exercise.cu
# Only the tree: the starter's other four kernels are sync.cu's, right
# already (DEMO=all checks them too).
EXERCISE_PARTS := tree:10
