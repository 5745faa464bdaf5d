-- AlterTable
ALTER TABLE "tasks" ADD COLUMN     "max_interval_minutes" INTEGER,
ADD COLUMN     "min_interval_minutes" INTEGER;
