"""placeholder while the game is written"""
